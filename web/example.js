// Example: shrink a model in the browser right before onnxruntime-web loads it.
//
// The download stays the original file (serve the shrunk one when you can: that is what saves
// bandwidth), but the session is built from 8-bit weights folded back to floats at load, or from
// a palette model; either way nothing leaves the page. expand() gives plain float weights back,
// for runtimes that would otherwise run a DequantizeLinear on every inference.
//
//   import { shrunkSession } from './example.js';
//   const { session, report } = await shrunkSession('model.onnx');
//   const outputs = await session.run(feeds);
import * as ort from './vendor/ort/ort.wasm.min.mjs';
import { expand, shrink } from './vendor/onnx-shrink/bindings/js/index.js';

ort.env.wasm.wasmPaths = new URL('./vendor/ort/', import.meta.url).href;
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';

export { ort };

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** A session on the model at `url` as published, for comparison. */
export async function originalSession(url) {
  return ort.InferenceSession.create(await download(url));
}

/**
 * A session on the model at `url`, shrunk in this page first (options as for shrink()). With
 * `expanded: true` the shrunk model is expanded back to float weights before the session is made.
 */
export async function shrunkSession(url, { expanded = false, ...options } = {}) {
  const original = await download(url);
  const { model, report } = await shrink(original, options);
  const bytes = expanded ? await expand(model) : model;
  return { session: await ort.InferenceSession.create(bytes), report, originalBytes: original.byteLength, bytes: bytes.byteLength };
}

// The page itself: the sample voice-activity model, original and shrunk, on one second of noise.
async function demo() {
  const out = document.getElementById('out');
  const url = new URL('./samples/silero_vad_v5.onnx', import.meta.url).href;
  const shrunk = await shrunkSession(url);
  const original = await originalSession(url);
  const feeds = {
    input: new ort.Tensor('float32', Float32Array.from({ length: 512 }, (_, i) => 0.1 * Math.sin(i / 3)), [1, 512]),
    state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
    sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
  };
  const a = (await original.run(feeds)).output.data[0], b = (await shrunk.session.run(feeds)).output.data[0];
  out.textContent = `${shrunk.report.summary}\nspeech probability: original ${a.toFixed(4)}, shrunk ${b.toFixed(4)}`;
}

if (typeof document !== 'undefined' && document.getElementById('run')) {
  document.getElementById('run').addEventListener('click', () => {
    demo().catch((e) => (document.getElementById('out').textContent = `failed: ${e.message}`));
  });
}
