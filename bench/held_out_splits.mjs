// PP-OCR det's held-out row of issue 23 on every way to split its page's four quadrants into two for
// calibration and two held back (bench/wire_accuracy.mjs uses one: the top two calibrate). For each
// split: the default's error on both halves, and target mode aimed at the default's calibration
// error and at that divided by 1.2, 1.5 and 2; the row is met when one of those files has a held-out
// error at most the default's and at most 0.8x the default's brotli -q 11 bytes.
//
//   node bench/held_out_splits.mjs      prints a Markdown table
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { objectiveSize, shrink } from '../bindings/js/index.node.js';
import { pageQuadrants } from './corpus.mjs';
import { evaluator, WIRE_MODELS } from './wire_accuracy.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const spec = WIRE_MODELS.find((m) => m.key === 'det');
const model = readFileSync(path.join(root, 'tests', 'fixtures', spec.file));
const NAMES = ['top left', 'top right', 'bottom left', 'bottom right'];
const AIMS = [1, 1.2, 1.5, 2];

// The page's quadrants in this order (the first two calibrate).
function ordered(order) {
  const all = pageQuadrants(), size = all.byteLength / 4;
  const out = new Uint8Array(all.byteLength);
  order.forEach((q, k) => out.set(all.subarray(q * size, (q + 1) * size), k * size));
  return out;
}

async function split(order) {
  const samples = { x: ordered(order) };
  const { measure } = await evaluator(model, spec, samples);
  const plain = (await shrink(model)).model;
  const base = await measure(plain);
  const baseBrotli = objectiveSize(plain, 'brotli', 11);
  const files = [];
  for (const d of AIMS) {
    const made = await shrink(model, { target: `relL2=${base.calibration.relL2 / d}`, decision: spec.decision, samples, shapes: spec.shapes,
                                            feedBack: spec.feedBack });
    const m = await measure(made.model);
    files.push({ aim: d, calibration: m.calibration.relL2, heldOut: m.heldOut.relL2, ratio: objectiveSize(made.model, 'brotli', 11) / baseBrotli });
  }
  const good = files.filter((f) => f.heldOut <= base.heldOut.relL2).sort((a, b) => a.ratio - b.ratio)[0];
  return { order, base: { calibration: base.calibration.relL2, heldOut: base.heldOut.relL2 }, files, good, met: !!good && good.ratio <= 0.8 };
}

const e = (x) => x.toExponential(2);
const lines = ['| calibrate on | default: calibration, held out | target files (aim: calibration, held out, brotli / default\'s) | held-out row |',
               '| --- | --- | --- | --- |'];
const pairs = [];
for (let a = 0; a < 4; a++) for (let b = a + 1; b < 4; b++) pairs.push([a, b]);
for (const [a, b] of pairs) {
  const rest = [0, 1, 2, 3].filter((q) => q !== a && q !== b);
  const r = await split([a, b, ...rest]);
  const files = r.files.map((f) => `/${f.aim}: ${e(f.calibration)}, ${e(f.heldOut)}, ${f.ratio.toFixed(3)}×`).join('; ');
  const verdict = r.good ? `${r.good.ratio.toFixed(3)}× (aim /${r.good.aim}): ${r.met ? 'met' : 'missed'}` : 'no file at the default\'s held-out error: missed';
  lines.push(`| ${NAMES[a]}, ${NAMES[b]} | ${e(r.base.calibration)}, ${e(r.base.heldOut)} | ${files} | ${verdict} |`);
  console.error(lines[lines.length - 1]);
}
console.log(lines.join('\n'));
