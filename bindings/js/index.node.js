// onnx-shrink for Node: the .wasm file is read from next to this module (or env.wasmPath /
// env.wasmBinary), and fileSource() reads a model or external data file in slices, so that files
// larger than memory (or than WebAssembly's 4 GB) can be shrunk.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { createApi, OnnxShrinkError } from './core.js';
import { indistinctDoubts, MEASURED_KINDS, makeEvaluator, meets, parseDecision, parseTarget, searchTarget, targetRefusal } from './target.js';
import { declaredShape, sampleCount } from './verify.js';

const api = createApi(
  async (wasmPath) => readFileSync(wasmPath ?? fileURLToPath(new URL('../../dist/onnx-shrink.wasm', import.meta.url))),
  // shrink('model.onnx') reads no file: the path goes to fileSource().
  (name) => `to read a file, pass fileSource(${name}) instead (import { fileSource } from 'onnx-shrink')`);

export const { env, inspect, expand, openForRuntime, version, wasmMemory } = api;
export { OnnxShrinkError };


/**
 * Shrinks a model; with `target`, the smallest file that meets it (see shrinkToTarget).
 */
export async function shrink(input, options = {}) {
  if (options?.target !== undefined) return shrinkToTarget(input, options);
  const given = TARGET_ONLY.filter((key) => options?.[key] !== undefined);
  if (given.length) throw new OnnxShrinkError(`${given.join(', ')}: ${given.length === 1 ? 'an option' : 'options'} of target mode: give target too`, 'BAD_OPTION');
  return api.shrink(input, options);
}
const TARGET_ONLY = ['objective', 'samples', 'shapes', 'decision', 'feedBack'];

// The size of `bytes` by the objective: brotli at quality 11 (as a host serves it precompressed),
// gzip -9, or raw.
export function objectiveSize(bytes, objective, quality = 11) {
  if (objective === 'raw') return bytes.byteLength;
  if (objective === 'gzip') return gzipSync(bytes, { level: 9 }).byteLength;
  return brotliCompressSync(bytes, brotliOptions(bytes, quality)).byteLength;
}

const brotliOptions = (bytes, quality) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } });

// objectiveSize's, compressed on zlib's threads (beside the next candidate's measure), in pieces of
// SIZING_PIECE bytes, telling onFraction(f) the fraction compressed after each (brotli at quality 9
// of a 37 MB point takes 5 to 15 s on two busy cores). The same bytes as one call's: a stream with
// the whole size as its hint compresses as brotliCompressSync does (compressed_sizes.js).
const SIZING_PIECE = 1 << 20;
function objectiveSizeLater(bytes, objective, quality, onFraction, signal) {
  if (objective === 'raw') return bytes.byteLength;
  const stream = objective === 'gzip' ? createGzip({ level: 9 }) : createBrotliCompress(brotliOptions(bytes, quality));
  let size = 0;
  stream.on('data', (chunk) => (size += chunk.byteLength));
  const done = new Promise((resolve, reject) => {
    const cancel = () => {
      stream.destroy();
      reject(new OnnxShrinkError('cancelled', 'CANCELLED'));
    };
    signal?.addEventListener('abort', cancel, { once: true });
    stream.on('end', () => resolve(size)).on('error', reject).on('close', () => signal?.removeEventListener('abort', cancel));
  });
  const pieces = Math.max(1, Math.ceil(bytes.byteLength / SIZING_PIECE));
  for (let k = 0; k < pieces; k++) {
    stream.write(bytes.subarray(k * SIZING_PIECE, (k + 1) * SIZING_PIECE), () => onFraction?.((k + 1) / pieces));
  }
  stream.end();
  return done;
}

/**
 * Target mode: the smallest file (by `objective`: 'brotli' (default), 'gzip' or 'raw') that meets
 * `target` ('relL2=0.01', 'maxAbs=0.05', 'agree=0.999' with a `decision` ('argmax' or
 * 'threshold:0.3'), or 'size=1.2MB' / 'size=0.25'), measured in onnxruntime-node on `samples`
 * ({ inputName: bytes }: raw little-endian values, samples back to back, as the CLI's --input
 * takes them, or a number: that value everywhere in every sample, as --value; `shapes` for open
 * dimensions). It calibrates on the first half of the samples and
 * reports the other half as `target.chosen.heldOut`. Without samples, only a size target or
 * 'default' can be met, by estimates ('default': no more error than the default's, estimated; with
 * samples, measured). Refuses what would change the files it sizes (bits, tensorBits,
 * externalData 'external', onModelData, onExternalData, chunks). Resolves as shrink() does, with
 * `target`: the points tried and the one chosen.
 */
export async function shrinkToTarget(input, options = {}) {
  const { signal } = options ?? {};
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || !('aborted' in signal))) {
    throw new OnnxShrinkError("option 'signal' should be an AbortSignal", 'BAD_OPTION');
  }
  // Cancelled by `signal`, or by onProgress returning false: the search stops at its next step,
  // measure or size.
  const stopper = new AbortController();
  const stop = () => stopper.abort();
  if (signal?.aborted) stop();
  else signal?.addEventListener?.('abort', stop, { once: true });
  try {
    return await searchFor(input, options ?? {}, stopper);
  } finally {
    signal?.removeEventListener?.('abort', stop);
  }
}

async function searchFor(input, options, stopper) {
  const { target, objective = 'brotli', samples, shapes: givenShapes, decision, feedBack = {}, onProgress, onReport, signal: _, ...rest } = options;
  const bad = (message) => new OnnxShrinkError(message, 'BAD_OPTION');
  if (!(input instanceof Uint8Array)) throw bad('target mode takes the model as bytes (a Uint8Array): it runs the model in onnxruntime-node');
  for (const [key, f] of [['onProgress', onProgress], ['onReport', onReport]]) {
    if (f !== undefined && typeof f !== 'function') throw bad(`option '${key}' should be a function`);
  }
  const refused = targetRefusal(rest);
  if (refused) throw bad(`target: ${refused}`);
  const shapes = shapesOf(givenShapes, bad);
  let goal;
  try {
    goal = target === 'default' ? { kind: 'default' } : parseTarget(target);
  } catch (e) {
    throw bad(`target: ${e.message}`);
  }
  if (goal.kind === 'agree' && !decision) throw bad("target: agree= counts decisions kept: give decision ('argmax' or 'threshold:N')");
  const given = samples === undefined ? {} : sampleValues(samples, bad);
  if (decision !== undefined && !Object.values(given).some((s) => s instanceof Uint8Array)) {
    throw bad('decision: decisions are counted on samples, and none are given (samples: { inputName: bytes })');
  }
  const stop = () => stopper.abort();
  const check = () => {
    if (stopper.signal.aborted) throw new OnnxShrinkError('cancelled', 'CANCELLED');
  };
  // The user's callbacks' own exceptions come back as they are (not as option errors).
  const theirs = new WeakSet();
  const call = (f, ...args) => {
    try {
      return f(...args);
    } catch (e) {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) theirs.add(e);
      throw e;
    }
  };
  const progress = (f, what) => {
    if (onProgress && call(onProgress, f, what) === false) stop();
  };
  check();
  // Names in samples, shapes and feedBack are checked with or without samples to measure on.
  let report = null;
  if (Object.keys(given).length || Object.keys(shapes).length || Object.keys(feedBack ?? {}).length) {
    report = await api.inspect(input, rest);
    const names = (list) => list.map((i) => i.name).join(', ');
    for (const [what, named] of [['samples', given], ['shapes', shapes]]) {
      const unknown = Object.keys(named).filter((name) => !report.model.inputs.some((i) => i.name === name));
      if (unknown.length) throw bad(`${what}: the model has no input ${unknown.map((n) => `'${n}'`).join(', ')} (its inputs: ${names(report.model.inputs)})`);
    }
    checkFeedBack(feedBack, report.model, bad);
    // As the CLI: without data to measure on, shapes and feedBack would describe nothing.
    const describing = [['shapes', shapes], ['feedBack', feedBack ?? {}]].filter(([, o]) => Object.keys(o).length).map(([k]) => k);
    if (describing.length && !MEASURED_KINDS.includes(goal.kind) && !Object.values(given).some((s) => s instanceof Uint8Array)) {
      throw bad(`${describing.join(' and ')} describe${describing.length === 1 ? 's' : ''} the samples' data, and none is given: target ${target} then works by ` +
                'estimates (give samples: { inputName: bytes } to measure)');
    }
    for (const i of report.model.inputs) {
      const array = TYPED_ARRAYS[i.dtype], v = samples?.[i.name];
      if (ArrayBuffer.isView(v) && !(v instanceof Uint8Array) && !(v instanceof DataView) && !(array && v instanceof array)) {
        throw bad(`samples: input '${i.name}' is ${i.dtype}, but a ${v.constructor.name} was given: its bytes would be read as ${i.dtype} values ` +
                  `(give ${array ? `a ${array.name}, or ` : ''}the bytes as a Uint8Array)`);
      }
    }
  }
  // The model's external data files, read whole once (onnxruntime's sessions and the original's size need them).
  let files = null;
  const dataFiles = async () => (files ??= externalFiles((report ?? await api.inspect(input, rest)).externalFiles, rest.external));
  let measure, observe, split = null, doubts = [];
  if (Object.values(given).some((s) => s instanceof Uint8Array)) {
    let ort;
    try {
      ort = (await import('onnxruntime-node')).default;
    } catch (e) {
      throw bad(`target mode measures on samples with onnxruntime-node, which does not load here: ${e?.message ?? e}`);
    }
    progress(0, 'running the original on the samples');
    const inputs = report.model.inputs.map((i) => {
      const declared = declaredShape(i.shape);
      if (!shapes[i.name] && declared.guessed) {
        const dims = i.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : '?')).join(', ');
        throw bad(`input '${i.name}' has open dimensions (it declares [${dims}]): give its shape in shapes, every dimension a number (shapes: { '${i.name}': [...] })`);
      }
      const data = given[i.name];
      if (data === undefined) throw bad(`samples has no data for input '${i.name}'`);
      return { name: i.name, dtype: i.dtype, shape: shapes[i.name] ?? declared.shape, ...(data instanceof Uint8Array ? { bytes: data } : { value: data }) };
    });
    let how;
    try {
      how = decision ? parseDecision(decision) : {};
    } catch (e) {
      throw bad(`decision: ${e.message}`);
    }
    try {
      sampleCount(inputs);
    } catch (e) {
      throw bad(`samples: ${e.message}`);
    }
    let evaluator;
    try {
      // onnxruntime reads a model given as bytes without its folder: its external data goes with it.
      const externalData = await dataFiles();
      evaluator = await makeEvaluator(ort, input, inputs, { feedBack, decision: how, ...(externalData.length ? { externalData } : {}) });
    } catch (e) {
      throw bad(`target: the original model on the samples: ${e.message}`);
    }
    measure = async (...args) => {
      check();
      const measured = await evaluator.measure(...args);
      check();
      return measured;
    };
    observe = evaluator.observe && (async (...args) => {
      check();
      const seen = await evaluator.observe(...args);
      check();
      return seen;
    });
    split = { calibration: evaluator.calibrate, heldOut: evaluator.samples - evaluator.calibrate };
    doubts = evaluator.doubts;
  }
  try {
    const result = await searchTarget(input, {
      engine: { shrink: api.shrink, inspect: api.inspect, expand: api.expand }, options: { ...rest, signal: stopper.signal }, target: goal, objective, measure, observe,
      onProgress: progress,
      size: (bytes, onFraction) => objectiveSizeLater(bytes, objective, 9, onFraction, stopper.signal),
      // Only a size given as a fraction of the original's needs it (brotli of 150 MB: 15 s): the
      // model's file and its external data files, each compressed as a host serves them.
      originalBytes: goal.kind === 'size' && goal.fraction !== undefined
        ? (await dataFiles()).reduce((sum, f) => sum + objectiveSize(f.data, objective, 9), objectiveSize(input, objective, 9))
        : undefined,
      brotliQuality: 9,
    });
    check();
    result.target.samples = split;
    result.target.doubts = [...doubts, ...indistinctDoubts(result.target.points)];
    // Whether the chosen file meets the target on the samples held out too (null: none held out).
    const held = result.target.chosen.heldOut;
    result.target.heldOutMet = result.target.met && held && MEASURED_KINDS.includes(result.target.goal.kind) ? meets(result.target.goal, held) : null;
    // The engine's summary is of the last file built; say what the search gives instead.
    if (!result.target.met) result.report.summary = `Target ${target} not met: ${result.target.why}. The model returned is the closest file tried; the CLI writes nothing.`;
    else if (result.target.chosen.beyond === 'the model left alone') {
      result.report.summary = `Target ${target}: only the model left alone meets it; no tensor is shrunk.`;
      // (That file excludes every tensor by name: said as what it is, except for the user's own.)
      for (const t of result.report.tensors) {
        if (t.reason === 'excluded by name' && !rest.exclude?.includes(t.name)) t.reason = 'left alone: only the model as it was meets the target';
      }
    }
    if (onReport) call(onReport, result.report);
    return result;
  } catch (e) {
    if (e instanceof OnnxShrinkError || theirs.has(e)) throw e;
    if (e?.refused) throw bad(`target: ${e.message}`);
    // Anything else is ours (a candidate onnxruntime cannot run, a bug): INTERNAL, the original as its cause.
    throw Object.assign(new OnnxShrinkError(`target: ${e?.message ?? e}`, 'INTERNAL'), { cause: e });
  }
}

// The external data files `names` as `external` gives them (by name, or from a function), whole:
// [{ path, data }], as onnxruntime's externalData option takes them.
async function externalFiles(names, external) {
  const files = [];
  for (const name of names) {
    const given = typeof external === 'function' ? external(name) : external?.[name];
    if (given != null) files.push({ path: name, data: await api.wholeBytes(given, `external data '${name}'`) });
  }
  return files;
}

// `shapes` as target mode takes it: { inputName: [whole numbers] }.
function shapesOf(shapes, bad) {
  if (shapes === undefined) return {};
  if (typeof shapes !== 'object' || shapes === null || Array.isArray(shapes)) {
    throw bad(`shapes takes { inputName: [dimensions] } (e.g. { x: [1, 3, 640, 640] }), not ${Array.isArray(shapes) ? 'an array' : String(shapes)}`);
  }
  for (const [name, shape] of Object.entries(shapes)) {
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d > 0)) {
      const seen = Array.isArray(shape) ? `[${shape.map(String).join(', ')}]` : typeof shape === 'string' ? `'${shape}'` : String(shape);
      throw bad(`shapes: input '${name}' takes an array of whole numbers (e.g. [1, 512]), not ${seen}`);
    }
  }
  return shapes;
}

// The typed array of each input type that holds its values as they are (a typed array of another
// kind given as samples would be read as bytes of this type: refused).
const TYPED_ARRAYS = { float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
                       int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array };

// `samples` as target mode takes it: each input's bytes (a Uint8Array, another typed array or a
// DataView as its bytes, or an ArrayBuffer; a typed array not of the input's type is refused once
// the model's inputs are known), or one number (a bigint for int64) for every value.
function sampleValues(samples, bad) {
  if (typeof samples !== 'object' || samples === null || Array.isArray(samples) || ArrayBuffer.isView(samples)) {
    throw bad('samples takes { inputName: bytes or a number }, one entry per input of the model');
  }
  return Object.fromEntries(Object.entries(samples).map(([name, v]) => {
    if (typeof v === 'number' || typeof v === 'bigint') return [name, v];
    if (v instanceof ArrayBuffer) return [name, new Uint8Array(v)];
    if (ArrayBuffer.isView(v)) return [name, new Uint8Array(v.buffer, v.byteOffset, v.byteLength)];
    throw bad(`samples: input '${name}' takes its samples' bytes (a Uint8Array, another typed array or an ArrayBuffer) or one number, not ${describe(v)}`);
  }));
}

const describe = (v) => (v === null ? 'null' : Array.isArray(v) ? 'an array (put its values in a typed array)' : typeof v === 'string' ? `the string '${v}'` : `a value of type ${typeof v}`);

// feedBack: { input: output } (a streaming model's state: the output of one sample fed to that
// input in the next), checked both ways round.
function checkFeedBack(feedBack, model, bad) {
  if (typeof feedBack !== 'object' || feedBack === null) throw bad('feedBack takes { inputName: outputName }');
  const isInput = (n) => model.inputs.some((i) => i.name === n), isOutput = (n) => model.outputs.some((o) => o.name === n);
  for (const [to, from] of Object.entries(feedBack)) {
    if (isInput(to) && isOutput(from)) {
      const a = model.outputs.find((o) => o.name === from).dtype, b = model.inputs.find((i) => i.name === to).dtype;
      if (a !== b) throw bad(`feedBack: output '${from}' is ${a} and input '${to}' ${b}: an output fed back must have its input's type`);
      continue;
    }
    const turned = isOutput(to) && isInput(from) ? `; it maps an input to the output fed into it: { '${from}': '${to}' }` : '';
    if (!isInput(to)) throw bad(`feedBack: the model has no input '${to}' to feed an output into (its inputs: ${model.inputs.map((i) => i.name).join(', ')})${turned}`);
    throw bad(`feedBack: the model has no output '${from}' to feed back into '${to}' (its outputs: ${model.outputs.map((o) => o.name).join(', ')})${turned}`);
  }
}

/**
 * A file as a synchronous reader { size, read(offset, length), close() }: pass it to shrink()
 * instead of the file's bytes, or as external data.
 */
export function fileSource(path) {
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new OnnxShrinkError(`cannot read '${path}': ${e.message}`, 'IO');
  }
  const { size } = fstatSync(fd);
  return {
    size,
    read(offset, length) {
      const buffer = Buffer.allocUnsafe(length);
      this.readInto(offset, buffer);
      return buffer;
    },
    readInto(offset, target) {
      let done = 0;
      while (done < target.byteLength) {
        const n = readSync(fd, target, done, target.byteLength - done, offset + done);
        if (n <= 0) throw new OnnxShrinkError(`'${path}' ended at ${offset + done} of ${size} bytes`, 'IO');
        done += n;
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
