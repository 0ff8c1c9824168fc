// Types of the onnx-shrink JS API (browser, Web Worker and Node entry points).

/** What kinds of failure an OnnxShrinkError reports. */
export type ErrorCode =
  | 'BAD_OPTION' | 'NOT_ONNX' | 'TRUNCATED' | 'MALFORMED' | 'UNSUPPORTED' | 'EXTERNAL_DATA_MISSING'
  | 'EXTERNAL_DATA_INVALID' | 'TOO_LARGE' | 'IO' | 'CANCELLED' | 'OUT_OF_MEMORY'
  | 'INTERNAL';

export declare class OnnxShrinkError extends Error {
  readonly code: ErrorCode;
  constructor(message: string, code: ErrorCode);
}

/** Bytes read on demand: for files larger than memory (a File in a worker, a file in Node). */
export interface Reader {
  readonly size: number;
  /** Exactly `length` bytes at `offset`, synchronously. */
  read(offset: number, length: number): Uint8Array;
  /**
   * Optional, faster: fill `target` (a view into the engine's memory, `target.byteLength` bytes)
   * with the bytes at `offset`, saving a copy. Used instead of read() when present.
   */
  readInto?(offset: number, target: Uint8Array): void;
}

/**
 * A model or an external data file: bytes, a Blob/File, a fetch Response (its body is read as a
 * Blob; a failed download is an `IO` error), or a reader. shrink(), inspect() and expand() also
 * take a promise of one: `await shrink(fetch('model.onnx'))`. A file name is not one: in Node,
 * `shrink(fileSource('model.onnx'))` reads the file (a string is a `BAD_OPTION` error saying so).
 */
export type Input = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | Response | Reader;

/** What a synchronous `external` function can give: bytes, a reader, or (in a Web Worker) a Blob. */
export type SyncInput = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | Reader;

export type Mode = 'int8' | 'palette';
export type Scheme = 'auto' | 'channel' | 'tensor' | 'kmeans' | 'uniform';
export type Form = 'fold' | 'dq';
export type ExternalDataMode = 'auto' | 'inline' | 'external';
/** The engine's stages ('encoding': inspect's); target mode's progress says what it measures in a sentence instead. */
export type Stage = 'reading' | 'encoding' | 'writing' | (string & {});

export interface ShrinkOptions {
  /** int8 (default): 8-bit codes expanded in the graph. palette: at most `levels` values per tensor. */
  mode?: Mode;
  /** int8: auto (default) | channel | tensor (the original Shrink Ray). palette: auto (default) | kmeans | uniform (the original). */
  scheme?: Scheme;
  /** int8: fold (default; Cast -> Mul -> Add, folded at load) or dq (DequantizeLinear). */
  form?: Form;
  /** Palette levels, 2..65536 (default 256). */
  levels?: number;
  /** int8: values per scale along the reduction axis (16..4096, a power of two); 0 (default) = per channel. */
  block?: number;
  /**
   * int8: bits per value of the codes. 'auto' (default): 8, plus a 9th and a 10th bit for as many
   * tensors as the bytes `small` saves pay for (lowest estimated SQNR first), never a larger result
   * than 8 bits with `small: 'keep'` (larger than 8 bits alone, and more accurate). 8, 9, 10, 12 or 16 (fold form): that many for every tensor that can take
   * them; each bit halves the rounding error and costs an eighth of a byte per value. 2 to 7: codes
   * in a narrower range, still one byte per value (the raw file is the size of 8 bits), which gzip
   * and brotli store in about that many bits; codebooks take 8, so those tensors get uniform codes.
   */
  bits?: 'auto' | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 12 | 16;
  /**
   * int8: bits for the named tensors instead of `bits` (what `bits` takes: 'auto', 2 to 10, 12 or
   * 16): `{ 'conv1.weight': 4 }`. A name that is no float tensor of the model is an error (BAD_OPTION).
   */
  tensorBits?: Record<string, NonNullable<ShrinkOptions['bits']>>;
  /** Tensors with fewer values get no 8-bit codes (default 16384; see `small`). */
  minElements?: number;
  /**
   * int8: float32 tensors under minElements. auto (default): stored as float16 behind a Cast where
   * float16 holds them, when large tensors are shrunk (except with scheme 'tensor'); fp16: always;
   * keep: left alone.
   */
  small?: 'auto' | 'fp16' | 'keep';
  /** Tensor names to leave alone. */
  exclude?: string[];
  /** Node names whose weights are left alone. */
  excludeNodes?: string[];
  /** Op types whose weights are left alone. */
  excludeOps?: string[];
  /** Where tensor data goes in the result: auto (default; inline unless over 2 GB), inline or external. */
  externalData?: ExternalDataMode;
  /** The external data file name written into the model. */
  externalLocation?: string;
  /** Tensors smaller than this stay inline (default 1024 bytes). */
  externalThreshold?: number;
  /** Offset alignment of external tensors: a power of two, 1..1048576 (default 4096). */
  externalAlignment?: number;
  /**
   * External data of the input: by file name, or a function from file name to data, called while
   * the engine runs, so it must answer at once: bytes or a reader (or a Blob, in a Web Worker).
   */
  external?: Record<string, Input | PromiseLike<Input>> | ((location: string) => SyncInput | undefined);
  /** Receives the external data of the result in pieces instead of collecting it. */
  onExternalData?: (chunk: Uint8Array) => void | PromiseLike<unknown>;
  /**
   * Receives the model itself in pieces, in order, instead of collecting it (the result's `model`
   * is then empty): to write a large model to a file or stream without holding all of it.
   */
  onModelData?: (chunk: Uint8Array) => void | PromiseLike<unknown>;
  /**
   * What onModelData and onExternalData receive: arrays of their own to keep ('copy', the
   * default), or views of the engine's memory that are valid only until the callback returns
   * ('view': no copy and no fresh memory per chunk). Use a view synchronously before returning
   * (fs.writeSync, hash.update, zlib's *Sync functions); a Node stream's write() and fs/promises
   * keep the chunk, and would write bytes the engine has since overwritten: give them 'copy'. A
   * callback returning a promise with 'view' is refused (BAD_OPTION); with 'copy', each chunk is
   * given once the last one's promise has settled, the call resolves after the last, and a
   * rejection fails it (IO).
   */
  chunks?: 'copy' | 'view';
  /** Called as work proceeds; return false to stop (the promise rejects with CANCELLED). */
  onProgress?: (fraction: number, stage: Stage) => boolean | void;
  /**
   * Stops the work when aborted (checked between steps; rejects with CANCELLED). The engine works in
   * one synchronous call on the calling thread: a timer or event on that thread cannot abort it until
   * the call ends. Abort from onProgress, or run the call in a Worker. Target mode yields between steps.
   */
  signal?: AbortSignal;
  /** Receives the report, also of expand() (which resolves to the model alone). */
  onReport?: (report: Report) => void;
}

export interface ValueInfo {
  name: string;
  dtype: string;
  /** null when the shape is unknown; a string for a symbolic dimension, null for an unknown one. */
  shape: Array<number | string | null> | null;
}

export interface TensorReport {
  name: string;
  graph: string;
  location: 'initializer' | 'constant';
  node?: string;
  dtype: string;
  shape: number[];
  consumers: string[];
  bytesBefore: number;
  bytesAfter: number;
  changed: boolean;
  reason?: string;
  scheme?: 'channel' | 'separable' | 'codebook' | 'block' | 'tensor' | 'kmeans' | 'ecsq' | 'uniform' | 'expanded';
  axis?: number;
  factorAxis?: number;
  block?: number;
  levels?: number;
  /** int8: bits per value of the codes (2 to 8, or more with low bits). */
  bits?: number;
  /**
   * int8: the entropy of the stored codes in bytes (order 0, over the tensor's code bytes; low bits
   * at their width): about what gzip and brotli store for them.
   */
  entropyBytes?: number;
  /** null when exact. */
  sqnrDb?: number | null;
  exact?: boolean;
}

export interface OpsetChange {
  domain: string;
  from: number;
  to: number;
  reason: string;
}

export interface Report {
  version: string;
  mode: 'int8' | 'palette' | 'expand';
  summary: string;
  unchanged: boolean;
  model: {
    irVersion: number;
    irVersionAfter: number;
    producer: string;
    opsets: Record<string, number>;
    inputs: ValueInfo[];
    outputs: ValueInfo[];
  };
  totals: {
    modelBytesBefore: number;
    modelBytesAfter: number;
    externalBytesBefore: number;
    externalBytesAfter: number;
    weightBytesBefore: number;
    weightBytesAfter: number;
    tensorsChanged: number;
    smallTensors: number;
    smallTensorBytes: number;
    /** Small tensors stored as float16 (`small`), and the small tensors' data bytes in the result. */
    smallTensorsFp16: number;
    smallTensorBytesAfter: number;
  };
  opsetChanges: OpsetChange[];
  removedInputs: string[];
  /** The small tensors stored as float16 behind a Cast (`small`), by name and graph (as TensorReport's). */
  float16Tensors: { name: string; graph: string }[];
  tensors: TensorReport[];
  /** The external data files the model refers to, as named in `external` (those it was given but does not name are not here). */
  externalFiles: string[];
}

export interface ShrinkResult {
  /** The model's bytes; empty when onModelData was given. */
  model: Uint8Array;
  report: Report;
  /** The external data file, when the result has one and no onExternalData was given. */
  externalData?: Uint8Array;
}

/** Where the .wasm file comes from (like onnxruntime-web's env.wasm). Set before the first call. */
export interface Env {
  wasmPath?: string | URL;
  wasmBinary?: Uint8Array | ArrayBuffer;
}
export declare const env: Env;

/** Node only: with `target`, target mode (as shrinkToTarget). */
export declare function shrink(input: Uint8Array, options: TargetOptions): Promise<TargetResult>;
export declare function shrink(input: Input | PromiseLike<Input>, options?: ShrinkOptions): Promise<ShrinkResult>;
export declare function inspect(input: Input | PromiseLike<Input>, options?: ShrinkOptions): Promise<Report>;
/**
 * Turns shrunk weights back into plain float tensors; external data comes inline (one
 * self-contained model, under 2 GB). With onModelData the model comes in chunks to it, and the
 * promise resolves to an empty array (on a failure or cancel, discard what it got). A model with
 * nothing shrunk comes back unchanged. shrink()'s other options are refused (BAD_OPTION).
 */
export declare function expand(input: Input | PromiseLike<Input>,
  options?: Pick<ShrinkOptions, 'external' | 'onProgress' | 'signal' | 'onReport' | 'onModelData' | 'chunks'>): Promise<Uint8Array>;
/**
 * openForRuntime()'s options: expand()'s, and the session's. onProgress and onReport are called only
 * when the model is expanded: a file handed over as it is is not read by the engine. Other names are
 * refused (BAD_OPTION).
 */
export interface OpenForRuntimeOptions extends Pick<ShrinkOptions, 'external' | 'onProgress' | 'signal' | 'onReport'> {
  /**
   * Expand to plain float weights before onnxruntime loads the model. Default: true, except with
   * onnxruntime-node (`ort.env.versions.node`) for a file under 16 MB whose size is known up front
   * (bytes, a Blob, a reader, a Response with Content-Length) and no `external` data given, which
   * gets the shrunk bytes as they are: the path measured faster for a first session (README, "Load
   * a shrunk model").
   */
  expand?: boolean;
  /** Passed to `ort.InferenceSession.create`. */
  sessionOptions?: unknown;
}
/**
 * An onnxruntime session (onnxruntime-web or -node: pass its module as `ort`) on a shrunk model:
 * `await openForRuntime(ort, fetch('model.shrunk.onnx'))`. With onnxruntime-web the model is
 * expanded to plain float weights first; onnxruntime-node gets a small file as it is (see `expand`).
 */
export declare function openForRuntime<Session = unknown>(
  ort: { InferenceSession: { create(bytes: Uint8Array, options?: any): Promise<Session> } },
  input: Input | PromiseLike<Input>, options?: OpenForRuntimeOptions): Promise<Session>;
export declare function version(): Promise<string>;
/** Bytes of WebAssembly memory the engine has grown to (it never shrinks): its peak use so far. */
export declare function wasmMemory(): Promise<number>;

/** Node only: a file as a Reader that reads in slices. */
export interface FileSource extends Reader {
  close(): void;
}
export declare function fileSource(path: string): FileSource;

/**
 * Target mode's options (Node): shrink()'s, and what to meet, on what. Not taken (the search sets
 * them, or they would change the files it sized): bits, tensorBits, externalData 'external',
 * onModelData, onExternalData, chunks; mode 'palette' and scheme 'tensor'. onReport is called once,
 * with the chosen file's report; onProgress returning false or `signal` stops the search
 * (OnnxShrinkError 'CANCELLED').
 */
export interface TargetOptions extends Omit<ShrinkOptions, 'bits' | 'tensorBits' | 'onModelData' | 'onExternalData' | 'chunks'> {
  /** 'relL2=N', 'maxAbs=N', 'agree=N' (with `decision`), 'size=1.2MB' or 'size=0.25' (of the original), or 'default'. */
  target: string;
  /** What "smallest" counts: 'brotli' (default; quality 9 for each point), 'gzip' (-9) or 'raw'. */
  objective?: 'brotli' | 'gzip' | 'raw';
  /**
   * Per input: raw little-endian values, samples back to back (as the CLI's --input; a Uint8Array,
   * an ArrayBuffer, a DataView or a typed array of the input's own type is taken as its bytes, a
   * typed array of another type refused), or a number (a bigint for int64): that value in every
   * sample (as --value).
   */
  samples?: Record<string, Uint8Array | ArrayBufferView | ArrayBuffer | number | bigint>;
  /** Shapes of inputs with open dimensions. */
  shapes?: Record<string, number[]>;
  /** For agree=: 'argmax' (over each output's last axis) or 'threshold:N'. */
  decision?: string;
  /** Streaming state: input name -> the output of the sample before that feeds it. */
  feedBack?: Record<string, string>;
}

/** How far a file's outputs moved on samples (a state fed back has no agreement). */
export interface Measured {
  relL2: number;
  maxAbs: number;
  agreement?: number;
  perOutput: { name: string; relL2: number; maxAbs: number; agreement?: number }[];
}

/** One candidate built and measured by target mode. */
export interface TargetPoint {
  /** Its place on the path (0: every tensor at 10 bits); negative past the path's top. */
  step: number;
  /**
   * Past the path's top (an error target that every tensor at 10 bits misses): which file, e.g.
   * 'every tensor at 12 bits, small ones kept', or 'the model left alone'. Its `predicted` is null.
   */
  beyond?: string;
  /** The mean bits per value of the tensors it chooses bits for (absent: the model left alone). */
  bits?: number;
  /** The objective's size of the file. */
  bytes: number;
  raw: number;
  /**
   * The objective's size estimated before building (wire_estimate.js: each tensor's code entropy
   * with a correction measured for brotli and gzip, the rest of the file calibrated on the first
   * point built, whose estimate is therefore its size).
   */
  estimatedBytes: number;
  /** The predicted output error (relative L2 of the worst output). */
  predicted: number | null;
  /** Measured on the calibration samples, and on the ones held back (null with one sample). */
  /** The worst over the outputs (the least agreement), and each output's own in perOutput. */
  measured?: Measured;
  heldOut?: Measured | null;
  /** How many layers' biases the file has moved by the samples' channel means (absent: none). */
  biasesMoved?: number;
  /**
   * When the bias correction is kept: the calibration rel. L2 of this point's file without and
   * with the biases moved; the point is the one that errs less (by the target's measure).
   */
  biasMove?: { without: number; with: number };
  /** When the search ran more than once: this point's codes ('auto' or 'channel'), and how plain per-channel codes were rounded. */
  scheme?: 'auto' | 'channel';
  rounding?: 'gptq' | 'nearest';
}

export interface TargetResult extends ShrinkResult {
  target: { met: boolean; estimated: boolean; objective: string; points: TargetPoint[]; chosen: TargetPoint;
            /** How sensitivities were measured: one tensor at a time ('each'), or from one run's activations (large models); null without samples. */
            probe: 'each' | 'activations' | null;
            /**
             * The data-aware bias correction (with samples and the one-at-a-time probe; null when not
             * tried): each point's rounding shifts its layers' output channels by the rounding
             * errors times the samples' input channel means, and the biases (a Conv's B, added when
             * it has none; a Gemm's C; a constant Add after a MatMul) are moved to undo it. `kept`:
             * whether it held on samples the means did not come from: every tensor at `bits`, each
             * half of the calibration samples corrected by the other half's means, the error
             * (the target's measure) `without` and `with` it (`measured` null with one sample).
             * When kept, each point is built both ways and keeps the one that errs less.
             */
            /**
             * With samples, a model small enough for the one-at-a-time probe and the default scheme,
             * the search runs with the default's codes, with plain per-channel codes rounded with the
             * inputs in view (where that holds) and with plain per-channel codes rounded to the nearest
             * code, and keeps the smallest file that meets the target: the chosen file's scheme, its
             * search ('auto', 'channel+gptq' or 'channel') and each search's outcome (absent when it
             * ran once).
             */
            scheme?: 'auto' | 'channel';
            search?: 'auto' | 'channel+gptq' | 'channel';
            searches?: Record<string, { met: boolean; bytes: number; measured: { relL2: number; maxAbs: number; agreement?: number } | null; biasCorrection: object | null; rounding: object | null }>;
            /**
             * Plain per-channel codes rounded with the calibration samples' inputs in view (GPTQ) for
             * MatMul, Gemm and 1x1 Conv weights, if that held on samples it did not see: every tensor
             * at `bits`, each half of the calibration samples rounding for the other (the target's
             * measure `without`, nearest, and `with`; `seen`: on the half that rounded), at the
             * `damping` (the share of the inputs' mean energy added to their products' diagonal) of
             * 0.01, 0.03 and 0.1 whose `with` was least (`tried`: each one's). `overfit`: how much
             * tighter the calibration samples are then held (null when not tried).
             */
            rounding?: { method: 'gptq'; layers: number; kept: boolean; overfit: number;
                         measured: { without: number; with: number; seen: number; bits: number; damping: number;
                                     tried: { damping: number; with: number }[] } | null } | null;
            /** The target the calibration samples were held to (tighter than `goal` for agree, and after such rounding). */
            aim?: { kind: string; value: number } | null;
            biasCorrection: { layers: number; kept: boolean; measured: { without: number; with: number; seen: number; bits: number } | null } | null;
            /**
             * The target as met: its kind and value; a size as `bytes` of the objective; 'default'
             * with its `predicted` error (without samples), or with samples a relL2 goal at the
             * default's measured error, `ofDefault` true.
             */
            goal: { kind: 'relL2' | 'maxAbs' | 'agree' | 'size' | 'default'; value?: number; bytes?: number; fraction?: number; predicted?: number; ofDefault?: boolean };
            /** Whether the chosen file meets an error or agree target on the samples held out too (null: none held out, or not such a target). */
            heldOutMet: boolean | null;
            /** How many samples were calibrated on and held out (null without samples: `estimated`). */
            samples: { calibration: number; heldOut: number } | null;
            /**
             * What makes the calibration samples say little, one sentence each (empty: nothing
             * found): an output with one value on every calibration sample, or, with `decision`, one
             * decision everywhere (a voice detector calibrated on silence keeps every decision), or
             * samples that all give the same outputs (the held-out ones then check nothing).
             */
            doubts: string[];
            tensorBits?: Record<string, number>; why?: string };
}

/**
 * Node only: the smallest file that meets `target`, measured in onnxruntime-node on `samples`
 * (calibrated on the first half, reported on the rest). shrink() with a `target` does the same.
 */
export declare function shrinkToTarget(input: Uint8Array, options: TargetOptions): Promise<TargetResult>;

/** Node only: the size of `bytes` as `objective` counts it (brotli at `quality`, 11 by default). */
export declare function objectiveSize(bytes: Uint8Array, objective: 'brotli' | 'gzip' | 'raw', quality?: number): number;
