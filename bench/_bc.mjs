import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';
import { inspect, objectiveSize, shrink, expand } from '../bindings/js/index.node.js';
import { makeEvaluator, parseDecision } from '../bindings/js/target.js';
import { biasCorrector } from '../bindings/js/bias_shift.js';
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
const corr = await biasCorrector(model, names, ev.observe);
console.log('readers', corr?.readers, 'tensors', names.length);
for (const bits of [10, 8, 6, 5, 4]) {
  const tensorBits = Object.fromEntries(names.map((n) => [n, bits]));
  const plain = await shrink(model, { tensorBits });
  const edited = corr.correct(await expand(plain.model));
  const fixed = await shrink(edited, { tensorBits });
  for (const [k, m] of [['plain', plain], ['fixed', fixed]]) {
    const r = await ev.measure(m.model);
    console.log(bits, k, objectiveSize(m.model, 'brotli', 9), r.calibration.relL2.toExponential(3), r.heldOut?.relL2.toExponential(3), r.heldOut?.agreement);
  }
}
