// openForRuntime(): an onnxruntime session on a shrunk model by the path measured fastest.
//
// A shrunk model can go to onnxruntime as it is (onnxruntime folds its dequantization chains at
// load, node by node), or be expanded back to plain float weights first and handed over then.
// Which is faster depends on the runtime and the model's size (BENCHMARKS.md, "Session creation"
// and "Time until ready"):
// - onnxruntime-web folds slowly: expanding first is faster on every model measured in Chromium.
// - onnxruntime-node folds in native code. For the first session in a new process (a program
//   that loads its model once), handing the bytes over is faster on files up to 10.5 MB (PP-OCR
//   det 1.7 MB, silero 0.8 MB, a generated conv stack 10.5 MB): expand() pays for the engine's
//   compile and its first call. From 24.8 MB (a transformer stack; the 150 MB conv stack's 39 MB)
//   expanding first is faster: onnxruntime's fold grows with the weights.
// So the default is to expand, except with onnxruntime-node (`ort.env.versions.node`) for an input
// whose size is known up front and under NODE_EXPAND_FROM bytes, with no external data given. The
// option `expand` says it outright. The expanded bytes are dropped once the session holds its
// weights. `ort` is the caller's: this package depends on neither runtime.
const NODE_EXPAND_FROM = 16e6;  // between the two sizes measured on either side

// Whether `ort` is onnxruntime-node (its env names its versions, as onnxruntime-common >= 1.17 does).
const isNodeRuntime = (ort) => typeof ort?.env?.versions?.node === 'string';

// The path measured faster for this runtime and input: true to expand first. A model whose
// external data is given is always expanded: that is how the data gets into one model.
function expandFirstFor(ort, input, options, knownSize) {
  if (!isNodeRuntime(ort) || options?.external != null) return true;
  const size = knownSize(input);
  return size === undefined || size >= NODE_EXPAND_FROM;
}

// What openForRuntime() takes: expand()'s options but the output's (the session gets the model),
// and its own two.
const OPTIONS = ['external', 'onProgress', 'signal', 'onReport', 'expand', 'sessionOptions'];

// `expand`, `inspect`: the package's; `wholeBytes(input)`: the bytes of anything expand() takes
// (core.js), for the path that hands them over unexpanded; `knownSize(input)`: its size when known
// without reading it (core.js); `onlyOptions`: core.js's check of the options' names. Resolves to
// the session, as ort.InferenceSession.create does.
export function makeOpenForRuntime({ expand, inspect, wholeBytes, knownSize, onlyOptions, OnnxShrinkError }) {
  return async function openForRuntime(ort, input, options = {}) {
    if (!ort?.InferenceSession?.create) throw new OnnxShrinkError('openForRuntime needs onnxruntime as its first argument (import * as ort from \'onnxruntime-web\')', 'BAD_OPTION');
    onlyOptions(options, OPTIONS, 'openForRuntime()');
    try {
      if (input != null && typeof input.then === 'function') input = await input;  // openForRuntime(ort, fetch(url))
    } catch (e) {
      throw e instanceof OnnxShrinkError ? e : Object.assign(new OnnxShrinkError(`the model could not be read: ${e?.message ?? e}`, 'IO'), { cause: e });
    }
    const { sessionOptions, expand: expandFirst = expandFirstFor(ort, input, options, knownSize), ...expandOptions } = options ?? {};
    if (typeof expandFirst !== 'boolean') throw new OnnxShrinkError(`option 'expand' should be a boolean, not ${typeof expandFirst}`, 'BAD_OPTION');
    let bytes;
    try {
      bytes = expandFirst ? await expand(input, expandOptions) : await wholeBytes(input);
    } catch (e) {
      if (e instanceof OnnxShrinkError) throw e;
      throw Object.assign(new OnnxShrinkError(`the model could not be read: ${e?.message ?? e}`, 'IO'), { cause: e });
    }
    // Handed over as they are, the bytes were not read by the engine: a signal aborted meanwhile
    // still stops the load here.
    if (expandOptions.signal?.aborted) throw new OnnxShrinkError('cancelled', 'CANCELLED');
    try {
      return await ort.InferenceSession.create(bytes, sessionOptions);
    } catch (e) {
      // Bytes handed over unread: when onnxruntime refuses them, the engine says what is wrong with
      // them, if anything (a truncated or non-ONNX file, and where); otherwise onnxruntime's error stands.
      if (!expandFirst) await inspect(bytes);
      throw e;
    }
  };
}
