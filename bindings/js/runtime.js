// openForRuntime(): an onnxruntime session on a shrunk model by the path measured fastest.
//
// A shrunk model can go to onnxruntime as it is (onnxruntime folds its dequantization chains at
// load, node by node), or be expanded back to plain float weights first and handed over then.
// Measured (BENCHMARKS.md, "Time until ready" and "Session creation"): expanding first is the
// faster path in onnxruntime-web on every model measured; in onnxruntime-node it is faster on
// PP-OCR det (64 against 78 ms) and the 150 MB bench models, and about even on silero (34 against
// 32 ms). So `expand: true` is the default. The expanded bytes are dropped once the
// session holds its weights. Works with onnxruntime-web and onnxruntime-node alike (`ort` is the
// caller's: this package does not depend on either).

// `expand`: the package's expand(); `wholeBytes(input)`: the bytes of anything expand() takes
// (core.js), for the path that hands them over unexpanded. Resolves to the session, as
// ort.InferenceSession.create does.
export function makeOpenForRuntime(expand, wholeBytes, OnnxShrinkError) {
  return async function openForRuntime(ort, input, options = {}) {
    if (!ort?.InferenceSession?.create) throw new OnnxShrinkError('openForRuntime needs onnxruntime as its first argument (import * as ort from \'onnxruntime-web\')', 'BAD_OPTION');
    const { sessionOptions, expand: expandFirst = true, ...expandOptions } = options ?? {};
    if (typeof expandFirst !== 'boolean') throw new OnnxShrinkError(`option 'expand' should be a boolean, not ${typeof expandFirst}`, 'BAD_OPTION');
    let bytes;
    try {
      bytes = expandFirst ? await expand(input, expandOptions) : await wholeBytes(input);
    } catch (e) {
      if (e instanceof OnnxShrinkError) throw e;
      throw new OnnxShrinkError(e.message, 'IO');
    }
    return ort.InferenceSession.create(bytes, sessionOptions);
  };
}
