// The page side of bench/ready.mjs: onnxruntime-web as the page vendors it (ort.wasm.min.mjs,
// single-threaded wasm) and the engine as the page loads it (bindings/js/index.js). Both runtimes are
// loaded by prepare(), before the clock starts; ready() then times one model from fetch to a ready
// session, the way a page author's code would do it.
import * as ort from '/vendor/ort/ort.wasm.min.mjs';
import { expand, version } from '/vendor/onnx-shrink/bindings/js/index.js';

ort.env.wasm.wasmPaths = '/vendor/ort/';
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';

// Compiles and instantiates both WebAssembly modules (a session on a one-node model for
// onnxruntime-web), so that what ready() times is the model's own cost.
window.prepare = async (tinyModelUrl) => {
  const tiny = new Uint8Array(await (await fetch(tinyModelUrl, { cache: 'no-store' })).arrayBuffer());
  const session = await ort.InferenceSession.create(tiny);
  await session.release();
  return { engine: await version() };
};

// fetch -> (expand) -> InferenceSession.create, in seconds per step.
window.ready = async (url, { expanded = false } = {}) => {
  const t0 = performance.now();
  const response = await fetch(url, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  let bytes = new Uint8Array(await response.arrayBuffer());
  const t1 = performance.now();
  const fetchedBytes = bytes.byteLength;
  if (expanded) bytes = await expand(bytes);
  const t2 = performance.now();
  const session = await ort.InferenceSession.create(bytes);
  const t3 = performance.now();
  await session.release();
  return { fetch: (t1 - t0) / 1000, prep: (t2 - t1) / 1000, create: (t3 - t2) / 1000, total: (t3 - t0) / 1000,
           fetchedBytes, sessionBytes: bytes.byteLength };
};
