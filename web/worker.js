// Runs the engine off the page's thread: shrinks the dropped model (read from its File in slices),
// then measures the gzip and brotli sizes of the original and the result. A message
// { id, measure: { original, shrunk } } (two Blobs) measures only, as after a cancelled measurement.
import { shrink, wasmMemory } from './vendor/onnx-shrink/bindings/js/index.js';
import initBrotli, { CompressStream, BrotliStreamResultCode } from './vendor/brotli-wasm/pkg.web/brotli_wasm.js';

const SLICE = 4 << 20;
let brotliReady = null;

// Which file is the model, and which are its external data (by name).
function sortFiles(files) {
  const models = files.filter((f) => /\.onnx$/i.test(f.name));
  if (models.length === 0) throw Object.assign(new Error('None of the files is an .onnx model. Add the model file.'), { code: 'NO_MODEL' });
  if (models.length > 1) {
    throw Object.assign(new Error(`Drop one model at a time (got ${models.map((f) => f.name).join(', ')}).`), { code: 'MANY_MODELS' });
  }
  const external = {};
  for (const f of files) if (f !== models[0]) external[f.name] = f;
  return { model: models[0], external };
}

// gzip size of a Blob; `onBytes(n)` as its bytes go in.
async function gzipSize(blob, onBytes) {
  const count = new TransformStream({
    transform(chunk, controller) {
      onBytes(chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
  const reader = blob.stream().pipeThrough(count).pipeThrough(new CompressionStream('gzip')).getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.byteLength;
  }
}

// Brotli size of a Blob, read in slices so that the whole file is never in brotli's memory;
// `onBytes(n)` as its bytes go in. At quality 9 and 11 each slice is fed in pieces of 256 kB, for
// progress on a slice that takes seconds (the output is the same however the input is cut at those
// qualities; at 5 it is not, and a slice is quick).
async function brotliSize(blob, quality, onBytes) {
  brotliReady ??= initBrotli();
  await brotliReady;
  const stream = new CompressStream(quality);
  const piece = quality >= 9 ? 1 << 18 : SLICE;
  let size = 0;
  for (let at = 0; at < blob.size; at += SLICE) {
    const slice = new Uint8Array(await blob.slice(at, at + SLICE).arrayBuffer());
    for (let from = 0; from < slice.byteLength; from += piece) {
      let input = slice.subarray(from, from + piece);
      for (;;) {
        const r = stream.compress(input, SLICE);
        size += r.buf.byteLength;
        const code = r.code;
        input = input.subarray(r.input_offset);
        r.free();
        if (code !== BrotliStreamResultCode.NeedsMoreOutput && input.byteLength === 0) break;
      }
      onBytes(Math.min(piece, slice.byteLength - from));
    }
  }
  for (;;) {
    const r = stream.compress(undefined, SLICE);
    size += r.buf.byteLength;
    const code = r.code;
    r.free();
    if (code === BrotliStreamResultCode.ResultSuccess) break;
  }
  stream.free();
  return size;
}

// What a byte costs to compress, relative to gzip, by brotli quality (measured in Chromium on the
// sample models: brotli-wasm at 11 is about 170 times slower than the browser's gzip). Only for
// the progress bar: it moves at about an even pace through all four measurements.
const BROTLI_COST = { 5: 4, 9: 8, 11: 170 };

// Measures the gzip, then brotli sizes of the original and the shrunk model into `sizes`, posting
// the sizes after gzip and at the end (final), and progress (one bar from 0 to 1 for all four).
async function measureSizes(originalBlob, shrunkBlob, sizes, post) {
  // Quality 11 (what static hosts precompress with) runs at about 0.2 MB a second here; 9 is a
  // few percent larger and many times faster, 5 faster still for the largest models.
  const quality = originalBlob.size <= 4e6 ? 11 : originalBlob.size <= 256e6 ? 9 : 5;
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
  const { id, files, options, measure } = event.data;
  const post = (message, transfer = []) => self.postMessage({ id, ...message }, transfer);
  try {
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
    const engine = { ms: performance.now() - started, wasmBytes: await wasmMemory() };
    // The result as Blobs, made once: the page saves them and the sizes are measured from them
    // (Blobs posted between threads share their bytes; a 1 GB result is held once, not thrice).
    const externalData = dataParts.length ? new Blob(dataParts, { type: 'application/octet-stream' }) : undefined;
    dataParts.length = 0;
    const modelBlob = new Blob([result.model], { type: 'application/octet-stream' });
    result.model = null;
    const originalBlob = new Blob([model, ...Object.values(external)]);
    const shrunkBlob = new Blob(externalData ? [modelBlob, externalData] : [modelBlob]);
    // The result can be saved now; the compressed sizes follow (minutes for the largest models).
    const sizes = { original: { raw: originalBlob.size }, shrunk: { raw: shrunkBlob.size } };
    post({ type: 'result', name: base, report: result.report, model: modelBlob, externalData, sizes, engine,
           blobs: { original: originalBlob, shrunk: shrunkBlob } });
    await measureSizes(originalBlob, shrunkBlob, sizes, post);
  } catch (e) {
    post({ type: 'error', code: e.code || 'INTERNAL', message: e.message || String(e) });
  }
};
