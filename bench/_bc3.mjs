import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { inspect, objectiveSize, shrink, expand } from '../bindings/js/index.node.js';
import { makeEvaluator, parseDecision } from '../bindings/js/target.js';
import { readGraph, initializerValues } from '../bindings/js/onnx_graph.js';
import { WIRE_MODELS } from './wire_accuracy.mjs';
import { declaredShape } from '../bindings/js/verify.js';
const spec = WIRE_MODELS.find((m) => m.key === 'det');
const model = new Uint8Array(readFileSync('tests/fixtures/' + spec.file));
const samples = spec.samples();
const report = await inspect(model);
const inputs = report.model.inputs.map((i) => { const d = samples[i.name]; return { name: i.name, dtype: i.dtype, shape: spec.shapes[i.name] ?? declaredShape(i.shape).shape, ...(typeof d === 'number' ? { value: d } : { bytes: d }) }; });
const ev = await makeEvaluator(ort, model, inputs, { feedBack: spec.feedBack, decision: parseDecision(spec.decision) });
const names = report.tensors.filter((t) => t.changed && t.bits !== undefined).map((t) => t.name);
const g0 = readGraph(model);
for (const scheme of ['auto', 'channel']) for (const bits of [8, 10, 12, 16]) {
  const m = await shrink(model, { scheme, bits, small: 'keep' });
  const r = await ev.measure(m.model);
  const ex = await expand(m.model); const g1 = readGraph(ex);
  let en = 0, wn = 0;
  for (const n of names) { const w = initializerValues(model, g0.initializers.get(n)), q = initializerValues(ex, g1.initializers.get(n)); for (let i = 0; i < w.length; i++) { en += (q[i]-w[i])**2; wn += w[i]**2; } }
  console.log(scheme, bits, objectiveSize(m.model, 'brotli', 9), r.calibration.relL2.toExponential(3), r.heldOut?.relL2.toExponential(3), 'weight relerr', Math.sqrt(en/wn).toExponential(2));
}
