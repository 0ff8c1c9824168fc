import { readFileSync } from 'node:fs';
import { objectiveSize, shrink } from '../bindings/js/index.node.js';
import { WIRE_MODELS } from './wire_accuracy.mjs';
const spec = WIRE_MODELS.find((m) => m.key === (process.argv[2] ?? 'det'));
const model = new Uint8Array(readFileSync('tests/fixtures/' + spec.file));
const targeted = { decision: spec.decision, samples: spec.samples(), shapes: spec.shapes, feedBack: spec.feedBack };
const base = objectiveSize((await shrink(model, {})).model, 'brotli', 11);
for (const t of process.argv.slice(4)) for (const scheme of process.argv[3].split(',')) {
  const r = await shrink(model, { ...targeted, target: t, scheme });
  const c = r.target.chosen;
  console.log(t, scheme, 'met', r.target.met, 'q11', objectiveSize(r.model, 'brotli', 11), (objectiveSize(r.model, 'brotli', 11) / base).toFixed(3), 'cal', c.measured.relL2.toExponential(2), 'held', c.heldOut?.relL2.toExponential(2));
}
