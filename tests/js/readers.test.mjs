// The reader over a Blob read as several parts (bindings/js/core.js's partsReader: what a Web
// Worker reads a dropped model into): reads that span parts, and a shrink read through it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { partsReader } from '../../bindings/js/core.js';
import { shrink } from '../../bindings/js/index.node.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

// Cuts `bytes` at the given offsets into views of it.
function cut(bytes, at) {
  const edges = [0, ...at, bytes.byteLength];
  return edges.slice(1).map((end, k) => bytes.subarray(edges[k], end));
}

test('partsReader gives the same bytes as the whole, for reads within and across parts', () => {
  const whole = new Uint8Array(1000).map((_, i) => (i * 37 + 11) & 255);
  const reader = partsReader(cut(whole, [1, 300, 301, 700]));  // parts of 1, 299, 1, 399 and 300 bytes
  assert.equal(reader.size, 1000);
  let seed = 12345;
  const next = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let k = 0; k < 500; k++) {
    const offset = next(1000), length = next(1001 - offset);
    const into = new Uint8Array(length);
    reader.readInto(offset, into);
    assert.deepEqual(into, whole.subarray(offset, offset + length), `readInto(${offset}, ${length})`);
    assert.deepEqual(reader.read(offset, length), whole.subarray(offset, offset + length), `read(${offset}, ${length})`);
  }
  assert.deepEqual(reader.read(0, 1000), whole);
});

test('partsReader of no parts is empty', () => {
  const reader = partsReader([]);
  assert.equal(reader.size, 0);
  assert.equal(reader.read(0, 0).byteLength, 0);
});

test('a model read through partsReader shrinks to the same bytes as from one array', async () => {
  const bytes = readFileSync(path.join(fixtures, 'silero_vad_v5.onnx'));
  const quarter = Math.ceil(bytes.byteLength / 4);
  const reader = partsReader(cut(bytes, [quarter, 2 * quarter, 3 * quarter]));
  const [fromParts, fromBytes] = [await shrink(reader), await shrink(bytes)];
  assert.ok(fromBytes.model.byteLength > 0 && fromBytes.model.byteLength < bytes.byteLength);
  assert.deepEqual(fromParts.model, fromBytes.model);
});
