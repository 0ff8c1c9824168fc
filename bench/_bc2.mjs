import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { inspect, objectiveSize, shrink, expand } from '../bindings/js/index.node.js';
import { makeEvaluator, parseDecision } from '../bindings/js/target.js';
import { WIRE_MODELS } from './wire_accuracy.mjs';
import { declaredShape } from '../bindings/js/verify.js';
const which = process.argv[2] ?? 'det';
const spec = WIRE_MODELS.find((m) => m.key === which);
const model = new Uint8Array(readFileSync('tests/fixtures/' + spec.file));
const samples = spec.samples();
const report = await inspect(model);
const inputs = report.model.inputs.map((i) => { const d = samples[i.name]; return { name: i.name, dtype: i.dtype, shape: spec.shapes[i.name] ?? declaredShape(i.shape).shape, ...(typeof d === 'number' ? { value: d } : { bytes: d }) }; });
const ev = await makeEvaluator(ort, model, inputs, { feedBack: spec.feedBack, decision: parseDecision(spec.decision) });
const names = report.tensors.filter((t) => t.changed && t.bits !== undefined).map((t) => t.name);
console.log('small fp16 tensors', report.tensors.filter((t) => t.changed && t.bits === undefined).length, 'bytes', report.tensors.filter((t) => t.changed && t.bits === undefined).reduce((s,t)=>s+t.bytesBefore,0));
const configs = { 'default': {}, 'all10 keep': { small: 'keep', tensorBits: Object.fromEntries(names.map((n) => [n, 10])) },
  'all8 keep': { small: 'keep', tensorBits: Object.fromEntries(names.map((n) => [n, 8])) },
  'all8 fp16': { tensorBits: Object.fromEntries(names.map((n) => [n, 8])) },
  'fp16 only': { exclude: names }, 'all10 fp16': { tensorBits: Object.fromEntries(names.map((n) => [n, 10])) } };
for (const [k, o] of Object.entries(configs)) {
  const m = await shrink(model, o);
  const r = await ev.measure(m.model);
  console.log(k, objectiveSize(m.model, 'brotli', 9), r.calibration.relL2.toExponential(3), r.heldOut?.relL2.toExponential(3));
}
