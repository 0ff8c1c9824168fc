// A model of 32 MB or more given as bytes reaches the engine as a reader, a tensor at a time (bindings/js/core.js, AS_READER), not copied whole into WebAssembly memory. This file runs
// in its own process (node --test), so the module's memory is this test's alone.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { expand, shrink, wasmMemory } from '../../bindings/js/index.node.js';
import { field, node, number, str, valueInfo, varint } from './onnx_writer.mjs';

// Joins byte arrays (numbers arrays or Uint8Arrays) into one Uint8Array.
function join(parts) {
  const arrays = parts.map((p) => (p instanceof Uint8Array ? p : Uint8Array.from(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.byteLength, 0));
  let at = 0;
  for (const a of arrays) out.set(a, at), (at += a.byteLength);
  return out;
}
// A length-delimited field whose body is too large for the writer's number arrays.
const bigField = (n, body) => join([varint(n * 8 + 2), varint(body.byteLength), body]);

// `count` MatMul weights of size x size, seeded uniform values in [-1, 1).
function matmulChain(count, size) {
  let s = 2463534242;
  const initializers = [], nodes = [];
  for (let k = 0; k < count; k++) {
    const values = new Float32Array(size * size);
    for (let i = 0; i < values.length; i++) (s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), (values[i] = (s >>> 0) / 2 ** 31 - 1);
    const header = [...number(1, size), ...number(1, size), ...number(2, 1), ...str(8, `w${k}`)];
    initializers.push(bigField(5, join([header, bigField(9, new Uint8Array(values.buffer))])));
    nodes.push(field(1, node('MatMul', [k ? `h${k}` : 'x', `w${k}`], [`h${k + 1}`])));
  }
  const graph = join([...nodes, str(2, 'g'), ...initializers, field(11, valueInfo('x', [1, size])), field(12, valueInfo(`h${count}`, [1, size]))]);
  return join([number(1, 7), field(8, [...str(1, ''), ...number(2, 13)]), bigField(7, graph)]);
}

test('bytes of 32 MB or more are read a tensor at a time by shrink() and expand(): the module grows by far less than the model', async () => {
  const bytes = matmulChain(9, 1024);  // 37.7 MB
  assert.ok(bytes.byteLength > 32 << 20);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const { model, report } = await shrink(bytes);
  assert.equal(report.tensors.length, 9);
  assert.ok(model.byteLength < bytes.byteLength / 3, `output ${model.byteLength} bytes`);
  // Copied whole, the 37.7 MB model alone would take the module's memory past it.
  const memory = await wasmMemory();
  assert.ok(memory < bytes.byteLength, `WebAssembly memory ${memory} bytes for a model of ${bytes.byteLength}`);
  // The same output as through a reader the caller gives, and the input untouched.
  const reader = { size: bytes.byteLength, read: (offset, length) => bytes.slice(offset, offset + length) };
  assert.deepEqual((await shrink(reader)).model, model);
  assert.equal(createHash('sha256').update(bytes).digest('hex'), digest);
  // expand() reads them the same way: a model with nothing to expand comes back byte for byte.
  assert.deepEqual(await expand(bytes), bytes);
  const after = await wasmMemory();
  assert.ok(after < bytes.byteLength, `after expand(), WebAssembly memory ${after} bytes for a model of ${bytes.byteLength}`);
});
