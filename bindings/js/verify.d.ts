// onnx-shrink/verify: the accuracy check of the CLI's --verify and the page's "Check accuracy",
// for running with onnxruntime (node or web) in your own tests.
//
//   import * as ort from 'onnxruntime-node';
//   import { compareModels } from 'onnx-shrink/verify';
//   const inputs = [{ name: 'input', dtype: 'float32', shape: [1, 512], bytes: readFileSync('chunks.f32') },
//                   { name: 'state', dtype: 'float32', shape: [2, 1, 128], value: 0 },
//                   { name: 'sr', dtype: 'int64', shape: [], value: 16000 }];
//   const results = await compareModels(ort.Tensor, inputs, (f) => original.run(f), (f) => shrunk.run(f),
//                                       { feedBack: { state: 'stateN' } });
//   console.log(results);   // [{ name: 'output', relL2: 0.0073, ... }, ...]
//
// compareModels is sampleFeeds, carryOver and OutputComparison in a loop; use those for loops of
// your own.

/** Input types whose values can be read from bytes or made up. */
export type InputType = 'float32' | 'float64' | 'float16' | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32'
  | 'int64' | 'uint64' | 'bool';

/** One model input to feed. */
export interface InputSpec {
  name: string;
  dtype: InputType | string;
  shape: number[];
  /** Fill every value with this number (instead of random values). */
  value?: number;
  /** Real data: raw little-endian values of `dtype`, one sample of `shape` or several back to back. */
  bytes?: Uint8Array;
  /** The shape was guessed (the model leaves dimensions open): `bytes` must then hold exactly one sample. */
  guessed?: boolean;
}

/** A number as IEEE half-precision bits (round to nearest even), as onnxruntime holds float16 data in a Uint16Array. */
export function toHalfBits(value: number): number;

/** The number that IEEE half-precision bits stand for. */
export function fromHalfBits(bits: number): number;

/** A declared shape made concrete: open dimensions become `open` (default 1); `guessed` when there were any. */
export function declaredShape(declared: ReadonlyArray<number | string | null> | undefined, open?: number): { shape: number[]; guessed: boolean };

/** One open dimension of a model input that a check would have to guess (see guessedDimensions). */
export interface GuessedDimension {
  input: string;
  axis: number;
  /** The dimension's symbolic name in the model, or '' when it has none. */
  symbol: string;
}

/**
 * The dimensions a check would guess: every open (symbolic or unknown) dimension of `inputs` (the
 * report's `model.inputs`, whose shapes hold a symbolic dimension as its name and an unknown one
 * as null) whose input is not among `given` (the inputs the user gave a shape or data for).
 */
export function guessedDimensions(inputs: ReadonlyArray<{ name: string; shape?: ReadonlyArray<number | string | null>; symbols?: ReadonlyArray<string> }> | undefined,
                                  given?: Iterable<string>): GuessedDimension[];

/**
 * What makes a check's numbers say little: one sentence per output that held NaN or infinity or
 * was constant in the original, or identical in both models on every sample (empty when none).
 */
export function suspicions(results: ReadonlyArray<Pick<OutputError, 'name' | 'constant' | 'identical'> & { nonFinite?: boolean }>,
                           options?: { unchanged?: boolean }): string[];

/**
 * With a threshold: one sentence per output whose values in the original were all on one side of
 * it (every model keeps every such decision), e.g. a voice detector checked on silence. Warnings:
 * the output's errors still tell.
 */
export function oneSidedOutputs(results: ReadonlyArray<Pick<OutputError, 'name' | 'constant' | 'oneDecision'>>, threshold: number): string[];

/** The most values one input may have (2^28); sampleCount throws beyond it. */
export const MAX_INPUT_VALUES: number;

/** How many samples the inputs' data hold (1 when none has data); throws an Error saying what does not fit. */
export function sampleCount(inputs: InputSpec[]): number;

/**
 * The feeds of each sample: data from `bytes`, `value`s, otherwise seeded random values (standard
 * normal floats, integers 0..7), the same on every run and in every JS engine. float16 data is
 * given to onnxruntime as the bits in a Uint16Array; float16 outputs are compared as numbers.
 * `Tensor` is onnxruntime's Tensor class (onnxruntime-node or onnxruntime-web).
 */
export function sampleFeeds<T>(Tensor: new (type: any, data: any, dims: readonly number[]) => T, inputs: InputSpec[]): Generator<Record<string, T>>;

/**
 * A sample's feeds for a model that takes its own outputs of the sample before as inputs (a
 * streaming model's state). `feedBack` maps input names to output names; `previous` is the model's
 * results for the sample before, or null for the first sample (whose feeds are kept).
 */
export function carryOver<T>(feeds: Record<string, T>, previous: Record<string, T> | null, feedBack: Record<string, string>): Record<string, T>;

/**
 * Runs two models sample by sample on the same inputs and compares their outputs: `runA` runs
 * the original, `runB` the other model, each given its own outputs of the sample before as
 * `feedBack` maps them (input name to output name).
 */
export function compareModels<T>(
  Tensor: new (type: any, data: any, dims: readonly number[]) => T, inputs: InputSpec[],
  runA: (feeds: Record<string, T>) => Promise<Record<string, T>>, runB: (feeds: Record<string, T>) => Promise<Record<string, T>>,
  options?: { feedBack?: Record<string, string>; threshold?: number; onSample?: (done: number) => void },
): Promise<OutputError[]>;

/** Fewer samples than this make a weak verdict between two good schemes (one input's verdict often differs on another). */
export const FEW_SAMPLES: number;

/** The output that moved most (highest relative L2 error; NaN counts as the most), leaving out `states` (outputs fed back) unless nothing else is left. */
export function worstOutput(results: OutputError[], states?: readonly string[]): OutputError;

/** How far one output moved, over every sample's values together. */
export interface OutputError {
  name: string;
  maxAbs: number;
  meanAbs: number;
  /** |b - a| / |a| */
  relL2: number;
  cosine: number;
  /** With a threshold: the share of values on the same side of it in both models; with argmax, of rows whose largest value is at the same place. */
  agreement?: number;
  /** With a threshold or argmax: null when the original decides more than one way, else its one decision (every value above the threshold or not; every row's largest at `index`). */
  oneDecision?: { above: boolean } | { index: number } | null;
  /** The original's values, more than one, were all the same: the check says nothing about this output. */
  constant: boolean;
  /** Both models gave exactly the same values on every sample: the inputs may not reach the changed weights. */
  identical: boolean;
  /** The original's values held NaN or infinity: no error can be measured against them (the errors and cosine are then NaN). */
  nonFinite: boolean;
}

/** Accumulates how far a model's outputs moved from the original's, sample by sample. */
export class OutputComparison {
  /**
   * `threshold`: also count the values on the same side of it in both models (decisions); `argmax`: the rows (last axis) whose largest value is at the same place.
   * `stateOutputs`: outputs that are a streaming model's state (fed back), compared as values and not counted as decisions.
   */
  constructor(options?: { threshold?: number; argmax?: boolean; stateOutputs?: readonly string[] });
  /** `a`: the original's results for one sample; `b`: the other model's, by output name. */
  add(a: Record<string, { data: ArrayLike<number | bigint> }>, b: Record<string, { data: ArrayLike<number | bigint> }>): void;
  results(): OutputError[];
}
