// Target mode on a large model (issue 23: "with 8 samples on the 150 MB bench model finishes in
// under a minute natively or in Node; progress is shown throughout and it can be cancelled"):
// the JS API in this Node process, `target` relL2=0.01 by default, on 8 samples of every input of
// the model, values drawn evenly in ±1.7 from a fixed seed (no real data exists for a generated
// model: the numbers measure the search's time, not an accuracy anyone would rely on).
// Reports the wall and CPU time, peak resident memory, the longest wait between two progress
// calls, and, with --cancel-after S, how long an abort S seconds in takes to stop the search.
//
//   node bench/target_large.mjs [MODEL.onnx] [--target relL2=0.01] [--samples 8] [--cancel-after S]
//
// MODEL defaults to bench/out/models/conv-150.onnx (`/usr/bin/python3 bench/make_shapes.py conv 150 bench/out/models/conv-150.onnx`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect, shrink } from '../bindings/js/index.node.js';
import { option } from './args.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : path.join(root, 'bench', 'out', 'models', 'conv-150.onnx');
const goal = option('--target', 'relL2=0.01');
const count = Number(option('--samples', '8'));
const cancelAfter = option('--cancel-after', null);

// Values drawn evenly in ±1.7 (xorshift32 from a fixed seed): `count` samples back to back.
function drawn(shape, seed) {
  const n = count * shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    values[i] = (s / 4294967296) * 3.4 - 1.7;
  }
  return new Uint8Array(values.buffer);
}

const bytes = readFileSync(file);
const { model } = await inspect(bytes);
const samples = {};
model.inputs.forEach((input, i) => {
  if (input.dtype !== 'float32' || input.shape.some((d) => typeof d !== 'number' || d <= 0)) {
    throw new Error(`input '${input.name}': this bench draws float32 values for fixed shapes, not ${input.dtype} [${input.shape}]`);
  }
  samples[input.name] = drawn(input.shape, 20261128 + i);
});

const controller = new AbortController();
// The longest wait between two progress calls, and the stage said before and after it.
let last = performance.now(), longestGap = 0, gapStages = null, calls = 0, stage = '(start)';
const onProgress = (fraction, what) => {
  const now = performance.now();
  if (now - last > longestGap) longestGap = now - last, gapStages = [stage, what];
  last = now;
  calls++;
  stage = what;
};
const cpu = process.cpuUsage();
const started = performance.now();
if (cancelAfter !== null) setTimeout(() => controller.abort(), Number(cancelAfter) * 1000);
let outcome;
try {
  const result = await shrink(bytes, { target: goal, samples, onProgress, signal: controller.signal });
  const { relL2, maxAbs } = result.target.chosen.measured ?? {};
  outcome = { met: result.target.met, probe: result.target.probe, points: result.target.points.length, bytes: result.target.chosen.bytes, relL2, maxAbs };
} catch (e) {
  outcome = { error: e.code ?? e.message };
}
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
if (performance.now() - last > longestGap) longestGap = performance.now() - last, gapStages = [stage, '(end)'];
console.log(JSON.stringify({
  model: path.basename(file), mb: bytes.byteLength / 1e6, target: goal, samples: count, inputs: model.inputs.length,
  seconds, cpuSeconds: (used.user + used.system) / 1e6, peakRssMb: process.resourceUsage().maxRSS / 1024,
  progressCalls: calls, longestProgressGapSeconds: longestGap / 1000, longestGapBetween: gapStages,
  ...(cancelAfter !== null ? { cancelAfterSeconds: Number(cancelAfter), stoppedAfterAbortSeconds: seconds - Number(cancelAfter) } : {}),
  ...outcome,
}));
