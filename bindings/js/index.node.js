// onnx-shrink for Node: the .wasm file is read from next to this module (or env.wasmPath /
// env.wasmBinary), and fileSource() reads a model or external data file in slices, so that files
// larger than memory (or than WebAssembly's 4 GB) can be shrunk.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import { createApi, OnnxShrinkError } from './core.js';
import { makeEvaluator, parseDecision, parseTarget, searchTarget } from './target.js';
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

// objectiveSize's, compressed on zlib's threads (beside the next candidate's measure).
const brotliLater = promisify(brotliCompress), gzipLater = promisify(gzip);
async function objectiveSizeLater(bytes, objective, quality) {
  if (objective === 'raw') return bytes.byteLength;
  if (objective === 'gzip') return (await gzipLater(bytes, { level: 9 })).byteLength;
  return (await brotliLater(bytes, brotliOptions(bytes, quality))).byteLength;
}

/**
 * Target mode: the smallest file (by `objective`: 'brotli' (default), 'gzip' or 'raw') that meets
 * `target` ('relL2=0.01', 'maxAbs=0.05', 'agree=0.999' with a `decision` ('argmax' or
 * 'threshold:0.3'), or 'size=1.2MB' / 'size=0.25'), measured in onnxruntime-node on `samples`
 * ({ inputName: bytes }: raw little-endian values, samples back to back, as the CLI's --input
 * takes them, or a number: that value everywhere in every sample, as --value; `shapes` for open
 * dimensions). It calibrates on the first half of the samples and
 * reports the other half as `target.chosen.heldOut`. Without samples, only a size target or
 * 'default' (no more bytes than the default at its estimated error) can be met, by estimates.
 * Resolves as shrink() does, with `target`: the points tried and the one chosen.
 */
export async function shrinkToTarget(input, options = {}) {
  const { target, objective = 'brotli', samples, shapes = {}, decision, feedBack = {}, onProgress, ...rest } = options;
  const bad = (message) => new OnnxShrinkError(message, 'BAD_OPTION');
  if (!(input instanceof Uint8Array)) throw bad('target mode takes the model as bytes (a Uint8Array): it runs the model in onnxruntime-node');
  let goal;
  try {
    goal = target === 'default' ? { kind: 'default' } : parseTarget(target);
  } catch (e) {
    throw bad(`target: ${e.message}`);
  }
  if (goal.kind === 'agree' && !decision) throw bad("target: agree= counts decisions kept: give decision ('argmax' or 'threshold:N')");
  let measure, observe, split = null, doubts = [];
  if (samples && Object.values(samples).some((s) => typeof s !== 'number')) {
    let ort;
    try {
      ort = (await import('onnxruntime-node')).default;
    } catch (e) {
      throw bad(`target mode measures on samples with onnxruntime-node, which does not load here: ${e?.message ?? e}`);
    }
    const report = await api.inspect(input, rest);
    for (const [what, given] of [['samples', samples], ['shapes', shapes]]) {
      const unknown = Object.keys(given).filter((name) => !report.model.inputs.some((i) => i.name === name));
      if (unknown.length) {
        throw bad(`${what}: the model has no input ${unknown.map((n) => `'${n}'`).join(', ')} (its inputs: ${report.model.inputs.map((i) => i.name).join(', ')})`);
      }
    }
    const inputs = report.model.inputs.map((i) => {
      const declared = declaredShape(i.shape);
      if (!shapes[i.name] && declared.guessed) throw bad(`input '${i.name}' has open dimensions: give its shape in shapes (e.g. { '${i.name}': [1, 3, 640, 640] })`);
      const data = samples[i.name];
      if (data === undefined) throw bad(`samples has no data for input '${i.name}'`);
      return { name: i.name, dtype: i.dtype, shape: shapes[i.name] ?? declared.shape, ...(typeof data === 'number' ? { value: data } : { bytes: data }) };
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
      evaluator = await makeEvaluator(ort, input, inputs, { feedBack, decision: how });
    } catch (e) {
      throw bad(`target: the original model does not run on the samples: ${e.message}`);
    }
    measure = evaluator.measure;
    observe = evaluator.observe;
    split = { calibration: evaluator.calibrate, heldOut: evaluator.samples - evaluator.calibrate };
    doubts = evaluator.doubts;
  }
  try {
    const result = await searchTarget(input, {
      engine: { shrink: api.shrink, inspect: api.inspect, expand: api.expand }, options: rest, target: goal, objective, measure, observe, onProgress,
      size: (bytes) => objectiveSizeLater(bytes, objective, 9),
      // Only a size given as a fraction of the original's needs it (brotli of 150 MB: 15 s).
      originalBytes: goal.kind === 'size' && goal.fraction !== undefined ? objectiveSize(input, objective, 9) : undefined,
      brotliQuality: 9,
    });
    result.target.samples = split;
    result.target.doubts = doubts;
    return result;
  } catch (e) {
    throw e instanceof OnnxShrinkError ? e : bad(`target: ${e.message}`);
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
