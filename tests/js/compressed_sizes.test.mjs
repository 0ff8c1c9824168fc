// The CLI's table sizes taken on a worker thread as the engine writes (bindings/js/compressed_sizes.js):
// the same numbers as compressing the whole at once, whatever the chunks; brotli of the model
// alone; null past the limit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { compressedSizes } from '../../bindings/js/compressed_sizes.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const det = readFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx'));  // 4.7 MB
const silero = readFileSync(path.join(fixtures, 'silero_vad_v5.onnx'));

const brotli9 = (bytes) =>
  brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }).byteLength;

// `bytes` given in chunks of `size` bytes.
function feed(sizes, part, bytes, size) {
  for (let at = 0; at < bytes.byteLength; at += size) sizes.write(part, bytes.subarray(at, Math.min(bytes.byteLength, at + size)));
}

test('gzip and brotli sizes as one call gives them, from odd chunks and a size hint over the real size', async () => {
  const sizes = compressedSizes({ brotli: true, sizeHint: 3 * det.byteLength });
  feed(sizes, 'model', det, 1000003);
  const { gzip, brotli } = await sizes.done();
  assert.equal(gzip.model, gzipSync(det, { level: 6 }).byteLength);
  assert.equal(brotli, brotli9(det));
  assert.equal(gzip.data, gzipSync(new Uint8Array(0), { level: 6 }).byteLength);
});

test('owned chunks are handed over, not copied: the same sizes', async () => {
  const sizes = compressedSizes({ brotli: true, sizeHint: det.byteLength });
  const chunks = [];
  for (let at = 0; at < det.byteLength; at += 1 << 20) chunks.push(Uint8Array.prototype.slice.call(det, at, Math.min(det.byteLength, at + (1 << 20))));  // copies (a Buffer's slice is a view)
  for (const c of chunks) sizes.write('model', c, true);
  assert.ok(chunks.every((c) => c.byteLength === 0));  // detached: handed to the worker
  const { gzip, brotli } = await sizes.done();
  assert.equal(gzip.model, gzipSync(det, { level: 6 }).byteLength);
  assert.equal(brotli, brotli9(det));
});

test('external data: gzipped on its own; brotli stops, as it measures the model alone', async () => {
  const sizes = compressedSizes({ brotli: true, sizeHint: det.byteLength });
  feed(sizes, 'model', silero, 65536);
  feed(sizes, 'data', det, 262144);
  const { gzip, brotli } = await sizes.done();
  assert.equal(gzip.model, gzipSync(silero, { level: 6 }).byteLength);
  assert.equal(gzip.data, gzipSync(det, { level: 6 }).byteLength);
  assert.equal(brotli, null);
});

test('brotli stopped when not wanted after all: null, gzip still measured', async () => {
  const sizes = compressedSizes({ brotli: true, sizeHint: det.byteLength });
  feed(sizes, 'model', det, 1 << 20);
  sizes.stopBrotli();
  const { gzip, brotli } = await sizes.done();
  assert.equal(gzip.model, gzipSync(det, { level: 6 }).byteLength);
  assert.equal(brotli, null);
});

test('past the limit, and brotli not asked for: null', async () => {
  const sizes = compressedSizes({ limit: 3e6 });  // silero 2.3 MB, det 4.7 MB
  feed(sizes, 'model', silero, 65536);
  feed(sizes, 'data', det, 65536);
  const { gzip, brotli } = await sizes.done();
  assert.equal(gzip.model, gzipSync(silero, { level: 6 }).byteLength);
  assert.equal(gzip.data, null);
  assert.equal(brotli, null);
});

test('how much smaller, in the words the CLI and the page share: a change that rounds to 1.00× is said as a share', async () => {
  const { sizeChange } = await import('../../bindings/js/cli_sizes.js');
  const page = (await import('../../web/format.js')).sizeChange;
  for (const say of [sizeChange, page]) {
    assert.equal(say(2_327_524, 823_469), '2.8× smaller');
    assert.equal(say(1000, 1000), 'same size');
    assert.equal(say(1000, 997), '0.3 % smaller');
    assert.equal(say(1000, 1004), '0.4 % larger');
    assert.equal(say(1000, 1050), '1.05× larger');
  }
  assert.equal(page(1000, 997, { saves: true }), '0.3 % smaller');
  assert.equal(page(2_327_524, 823_469, { saves: true }), '2.8× smaller, saves 64.6 %');
});
