// openForRuntime(): an onnxruntime session on a shrunk model by the path measured fastest.
//
// A shrunk model can go to onnxruntime as it is (onnxruntime folds its dequantization chains at
// load, node by node), or be expanded back to plain float weights first and handed over then.
// Which is faster depends on the runtime (BENCHMARKS.md, "Session creation" and "Time until ready"):
// - onnxruntime-web folds slowly: expanding first is faster on every model measured in Chromium.
// - onnxruntime-node folds in native code. For the first session in a new process (a program
//   that loads its model once) handing the bytes over is faster on both corpus models and the
//   150 MB conv stack: expand() pays for the engine's compile and runs in V8's baseline tier on
//   its first calls. Only once the engine is warm does expanding first win (PP-OCR det, the
//   150 MB models).
// So the default is to expand unless `ort` is onnxruntime-node (`ort.env.versions.node`); the
// option `expand` says it outright. The expanded bytes are dropped once the session holds its
// weights. `ort` is the caller's: this package depends on neither runtime.

// Whether `ort` is onnxruntime-node (its env names its versions, as onnxruntime-common >= 1.17 does).
const isNodeRuntime = (ort) => typeof ort?.env?.versions?.node === 'string';

// `expand`: the package's expand(); `wholeBytes(input)`: the bytes of anything expand() takes
// (core.js), for the path that hands them over unexpanded. Resolves to the session, as
// ort.InferenceSession.create does.
export function makeOpenForRuntime(expand, wholeBytes, OnnxShrinkError) {
  return async function openForRuntime(ort, input, options = {}) {
    if (!ort?.InferenceSession?.create) throw new OnnxShrinkError('openForRuntime needs onnxruntime as its first argument (import * as ort from \'onnxruntime-web\')', 'BAD_OPTION');
    const { sessionOptions, expand: expandFirst = !isNodeRuntime(ort), ...expandOptions } = options ?? {};
    if (typeof expandFirst !== 'boolean') throw new OnnxShrinkError(`option 'expand' should be a boolean, not ${typeof expandFirst}`, 'BAD_OPTION');
    let bytes;
    try {
      bytes = expandFirst ? await expand(input, expandOptions) : await wholeBytes(input);
    } catch (e) {
      if (e instanceof OnnxShrinkError) throw e;
      throw new OnnxShrinkError(e.message, 'IO');
    }
    // Handed over as they are, the bytes were not read by the engine: a signal aborted meanwhile
    // still stops the load here.
    if (expandOptions.signal?.aborted) throw new OnnxShrinkError('cancelled', 'CANCELLED');
    return ort.InferenceSession.create(bytes, sessionOptions);
  };
}
