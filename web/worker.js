// Runs the engine off the page's thread: shrinks the dropped model (read from its File in slices),
// then measures the gzip and brotli sizes of the original and the result.
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

async function gzipSize(blob) {
  const reader = blob.stream().pipeThrough(new CompressionStream('gzip')).getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.byteLength;
  }
}

// Brotli size of a Blob, fed in slices so that the whole file is never in brotli's memory.
async function brotliSize(blob, quality) {
  brotliReady ??= initBrotli();
  await brotliReady;
  const stream = new CompressStream(quality);
  let size = 0;
  for (let at = 0; at < blob.size; at += SLICE) {
    let input = new Uint8Array(await blob.slice(at, at + SLICE).arrayBuffer());
    for (;;) {
      const r = stream.compress(input, SLICE);
      size += r.buf.byteLength;
      const code = r.code;
      input = input.subarray(r.input_offset);
      r.free();
      if (code !== BrotliStreamResultCode.NeedsMoreOutput && input.byteLength === 0) break;
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

self.onmessage = async (event) => {
  const { id, files, options } = event.data;
  const post = (message, transfer = []) => self.postMessage({ id, ...message }, transfer);
  try {
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
    post({ type: 'result', name: base, report: result.report, model: modelBlob, externalData, sizes, engine });
    // Quality 11 (what static hosts precompress with) runs at about a megabyte a second here; 9 is a
    // few percent larger and many times faster, 5 faster still for the largest models.
    const quality = originalBlob.size <= 4e6 ? 11 : originalBlob.size <= 256e6 ? 9 : 5;
    const total = originalBlob.size + shrunkBlob.size;
    let done = 0;
    const measure = async (what, blob, fn) => {
      post({ type: 'progress', fraction: done / total / 2, stage: `${what} size` });
      const size = await fn(blob);
      done += blob.size / 2;
      return size;
    };
    sizes.original.gzip = await measure('gzip', originalBlob, gzipSize);
    sizes.shrunk.gzip = await measure('gzip', shrunkBlob, gzipSize);
    post({ type: 'sizes', sizes, final: false });
    sizes.original.brotli = await measure('brotli', originalBlob, (b) => brotliSize(b, quality));
    sizes.shrunk.brotli = await measure('brotli', shrunkBlob, (b) => brotliSize(b, quality));
    sizes.brotliQuality = quality;
    post({ type: 'sizes', sizes, final: true });
  } catch (e) {
    post({ type: 'error', code: e.code || 'INTERNAL', message: e.message || String(e) });
  }
};
