// Runs the engine off the page's thread: shrinks the dropped model (read from its File in slices),
// then measures the gzip and brotli sizes of the original and the result. A message
// { id, measure: { original, shrunk } } (two Blobs) measures only, as after a cancelled measurement.
import { shrink, wasmMemory } from './vendor/onnx-shrink/bindings/js/index.js';
import { sortFiles } from './files.js';
import { brotliQuality, brotliSize, gzipSize } from './sizes.js';
import { warmUpModel } from './warm_up.js';

// Whether this worker shrank warm_up.js's model before its job (the page starts its next worker
// ahead and warms it: { warm: true }, answered { type: 'warm' }).
let warmed = false;
async function warmUp(post) {
  const model = warmUpModel();
  await shrink(model, {});
  await shrink(model, { mode: 'palette' });
  warmed = true;
  post({ type: 'warm' });
}

// What a byte costs to compress, relative to gzip, by brotli quality (measured in Chromium on the
// sample models: brotli-wasm at 11 is about 170 times slower than the browser's gzip). Only for
// the progress bar: it moves at about an even pace through all four measurements.
const BROTLI_COST = { 5: 4, 9: 8, 11: 170 };

// Measures the gzip, then brotli sizes of the original and the shrunk model into `sizes`, posting
// the sizes after gzip and at the end (final), and progress (one bar from 0 to 1 for all four).
async function measureSizes(originalBlob, shrunkBlob, sizes, post) {
  const quality = brotliQuality(originalBlob.size);
  const brotliCost = BROTLI_COST[quality];
  const both = originalBlob.size + shrunkBlob.size;
  const total = both * (1 + brotliCost) || 1;
  let done = 0, shown = -1;
  const progress = (cost) => (n) => {
    done += n * cost;
    const fraction = Math.min(1, done / total);
    if (fraction - shown >= 0.005 || fraction === 1) {  // a message per half a percent at most
      shown = fraction;
      post({ type: 'progress', fraction, stage: 'measuring compressed sizes' });
    }
  };
  progress(1)(0);
  sizes.original.gzip = await gzipSize(originalBlob, progress(1));
  sizes.shrunk.gzip = await gzipSize(shrunkBlob, progress(1));
  post({ type: 'sizes', sizes, final: false });
  sizes.original.brotli = await brotliSize(originalBlob, quality, progress(brotliCost));
  sizes.shrunk.brotli = await brotliSize(shrunkBlob, quality, progress(brotliCost));
  sizes.brotliQuality = quality;
  post({ type: 'sizes', sizes, final: true });
}

self.onmessage = async (event) => {
  const { id, files, options, measure, warm } = event.data;
  const post = (message, transfer = []) => self.postMessage({ id, ...message }, transfer);
  try {
    if (warm) return await warmUp(post);
    if (measure) {
      const sizes = { original: { raw: measure.original.size }, shrunk: { raw: measure.shrunk.size } };
      await measureSizes(measure.original, measure.shrunk, sizes, post);
      return;
    }
    const { model, external } = sortFiles(files);
    const base = model.name.replace(/\.onnx$/i, '');
    const started = performance.now();
    // External data in the result is kept as Blob parts, never one array: it can be larger than
    // an ArrayBuffer may be, and the browser may keep large Blobs on disk.
    const dataParts = [];
    const result = await shrink(model, {
      ...options,
      external,
      externalLocation: `${base}.shrunk.onnx.data`,
      onExternalData: (chunk) => dataParts.push(chunk),
      onProgress: (fraction, stage) => post({ type: 'progress', fraction, stage }),
    });
    const engine = { ms: performance.now() - started, wasmBytes: await wasmMemory(), warmed };
    // The result as Blobs, made once: the page saves them and the sizes are measured from them
    // (Blobs posted between threads share their bytes; a 1 GB result is held once, not thrice).
    const externalData = dataParts.length ? new Blob(dataParts, { type: 'application/octet-stream' }) : undefined;
    dataParts.length = 0;
    const modelBlob = new Blob([result.model], { type: 'application/octet-stream' });
    result.model = null;
    // The original is the model and the data files it refers to: another file dropped with it is
    // not part of it (and is said to be unused).
    const used = result.report.externalFiles;
    const unused = Object.keys(external).filter((name) => !used.includes(name));
    const originalBlob = new Blob([model, ...used.map((name) => external[name])]);
    const shrunkBlob = new Blob(externalData ? [modelBlob, externalData] : [modelBlob]);
    // The result can be saved now; the compressed sizes follow (minutes for the largest models).
    const sizes = { original: { raw: originalBlob.size }, shrunk: { raw: shrunkBlob.size } };
    post({ type: 'result', name: base, report: result.report, model: modelBlob, externalData, sizes, engine, unused,
           blobs: { original: originalBlob, shrunk: shrunkBlob } });
    await measureSizes(originalBlob, shrunkBlob, sizes, post);
  } catch (e) {
    post({ type: 'error', code: e.code || 'INTERNAL', message: e.message || String(e) });
  }
};
