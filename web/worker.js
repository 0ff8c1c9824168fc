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
    const result = await shrink(model, {
      ...options,
      external,
      externalLocation: `${base}.shrunk.onnx.data`,
      onProgress: (fraction, stage) => post({ type: 'progress', fraction: 0.85 * fraction, stage }),
    });
    const engine = { ms: performance.now() - started, wasmBytes: await wasmMemory() };
    const originalBlob = new Blob([model, ...Object.values(external)]);
    const shrunkBlob = new Blob(result.externalData ? [result.model, result.externalData] : [result.model]);
    // Quality 11 (what static hosts precompress with) runs at about a megabyte a second here; 9 is a
    // few percent larger and many times faster, 5 faster still for the largest models.
    const quality = originalBlob.size <= 4e6 ? 11 : originalBlob.size <= 256e6 ? 9 : 5;
    post({ type: 'progress', fraction: 0.86, stage: 'gzip' });
    const gzip = [await gzipSize(originalBlob), await gzipSize(shrunkBlob)];
    post({ type: 'progress', fraction: 0.9, stage: 'brotli' });
    const brotli = [await brotliSize(originalBlob, quality)];
    post({ type: 'progress', fraction: 0.96, stage: 'brotli' });
    brotli.push(await brotliSize(shrunkBlob, quality));
    const sizes = {
      original: { raw: originalBlob.size, gzip: gzip[0], brotli: brotli[0] },
      shrunk: { raw: shrunkBlob.size, gzip: gzip[1], brotli: brotli[1] },
      brotliQuality: quality,
    };
    const transfer = [result.model.buffer];
    if (result.externalData) transfer.push(result.externalData.buffer);
    post({ type: 'result', name: base, report: result.report, model: result.model, externalData: result.externalData, sizes, engine }, transfer);
  } catch (e) {
    post({ type: 'error', code: e.code || 'INTERNAL', message: e.message || String(e) });
  }
};
