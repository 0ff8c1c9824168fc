// Runs pairs of models in onnxruntime-node on the same inputs and prints, per pair and output, how
// far apart they are. Driven by tests/python/test_models.py (which builds the models with the
// reference python onnx package and owns the assertions).
//
//   node tests/js/ort_compare.mjs manifest.json   ->  JSON on stdout
//
// manifest: [{ id, reference, candidate, inputs: [{ name, dtype, shape, file }], level? }]
// level: onnxruntime's graph optimization level for both sessions (default "all").
import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { fromHalfBits } from '../../bindings/js/verify.js';

const types = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
  bool: Uint8Array, uint8: Uint8Array, int8: Int8Array, float16: Uint16Array,
};

function feeds(inputs) {
  const out = {};
  for (const i of inputs) {
    const b = readFileSync(i.file);
    const T = types[i.dtype];
    const data = new T(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    out[i.name] = new ort.Tensor(i.dtype === 'bool' ? 'bool' : i.dtype, data, i.shape);
  }
  return out;
}

function compare(a, b) {
  let num = 0, den = 0, maxAbs = 0;
  // float16 data comes as the bits in a Uint16Array (Node has no Float16Array).
  const values = (t) => Array.from(t.data, t.type === 'float16' && t.data instanceof Uint16Array ? fromHalfBits : Number);
  const x = values(a), y = values(b);
  for (let k = 0; k < x.length; k++) {
    const d = y[k] - x[k];
    num += d * d;
    den += x[k] * x[k];
    maxAbs = Math.max(maxAbs, Math.abs(d));
  }
  const bytes = (t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return { relL2: den > 0 ? Math.sqrt(num / den) : Math.sqrt(num), maxAbs, size: x.length, sameShape: a.dims.join() === b.dims.join(),
           identical: a.type === b.type && bytes(a).equals(bytes(b)) };  // bit for bit
}

const manifest = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const results = [];
for (const c of manifest) {
  const r = { id: c.id };
  try {
    const options = { graphOptimizationLevel: c.level || 'all' };
    const ref = await ort.InferenceSession.create(c.reference, options);
    const cand = await ort.InferenceSession.create(c.candidate, options);
    const f = feeds(c.inputs);
    const [ro, co] = [await ref.run(f), await cand.run(f)];
    r.outputs = {};
    for (const name of ref.outputNames) r.outputs[name] = compare(ro[name], co[name]);
  } catch (e) {
    r.error = String(e.message || e);
  }
  results.push(r);
}
process.stdout.write(JSON.stringify(results));
