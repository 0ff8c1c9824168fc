// Target mode's rounding with the inputs in view (bindings/js/gptq.js): for MatMul, Gemm (transB)
// and 1x1 Conv weights, the rounded values lie on the grid the engine gives plain per-channel codes
// (shrinking them with scheme 'channel' and the same bits gives them back), and with correlated
// inputs they move the outputs less than the nearest codes do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ort from 'onnxruntime-node';
import { expand, shrink } from '../../bindings/js/index.node.js';
import { GPTQ_DAMPINGS, GPTQ_MAX_INPUTS, gptqRounder } from '../../bindings/js/gptq.js';
import { initializerValues, readGraph } from '../../bindings/js/onnx_graph.js';
import { makeEvaluator } from '../../bindings/js/target.js';
import { field, intAttribute, node, normals, number, str, tensor, valueInfo } from './onnx_writer.mjs';

// a [32, 64] -> MatMul(M) -> ym and Gemm(G, transB) -> yg; x [1, 48, 6, 6] -> Conv(C, 1x1) -> yc.
const M = 'mm.weight', G = 'gemm.weight', C = 'conv.weight';
function model() {
  const graph = [
    ...field(1, node('MatMul', ['a', M], ['ym'])),
    ...field(1, node('Gemm', ['a', G], ['yg'], [intAttribute('transB', 1)])),
    ...field(1, node('Conv', ['x', C], ['yc'])),
    ...str(2, 'correlated'),
    ...field(5, tensor(M, [64, 96], normals(64 * 96, 31, 0.1))),
    ...field(5, tensor(G, [80, 64], normals(80 * 64, 32, 0.1))),
    ...field(5, tensor(C, [40, 48, 1, 1], normals(40 * 48, 33, 0.1))),
    ...field(11, valueInfo('a', [32, 64])), ...field(11, valueInfo('x', [1, 48, 6, 6])),
    ...field(12, valueInfo('ym', [32, 96])), ...field(12, valueInfo('yg', [32, 80])), ...field(12, valueInfo('yc', [1, 40, 6, 6])),
  ];
  return Uint8Array.from([...number(1, 8), ...field(8, number(2, 13)), ...field(7, graph)]);
}

// Four samples: inputs that are mixtures of a few sources (strongly correlated channels).
const SAMPLES = 4;
function mixed(rows, channels, seed, channelAxisInner) {
  const sources = 4, mix = normals(sources * channels, seed);
  const z = normals(SAMPLES * rows * sources, seed + 1), noise = normals(SAMPLES * rows * channels, seed + 2, 0.05);
  const out = new Float32Array(SAMPLES * rows * channels);
  for (let r = 0; r < SAMPLES * rows; r++) {
    for (let c = 0; c < channels; c++) {
      let v = noise[r * channels + c];
      for (let s = 0; s < sources; s++) v += z[r * sources + s] * mix[s * channels + c];
      // [rows, channels], or per sample [channels, rows] (a Conv's NCHW with rows = positions)
      const sample = Math.floor(r / rows), p = r % rows;
      out[channelAxisInner ? r * channels + c : (sample * channels + c) * rows + p] = v;
    }
  }
  return new Uint8Array(out.buffer);
}
const samples = () => [{ name: 'a', dtype: 'float32', shape: [32, 64], bytes: mixed(32, 64, 41, true) },
                       { name: 'x', dtype: 'float32', shape: [1, 48, 6, 6], bytes: mixed(36, 48, 51, false) }];

test('rounded with the inputs in view: on the engine\'s per-channel grid, and the outputs move less than with the nearest codes', async () => {
  const original = model(), copy = original.slice();
  const evaluator = await makeEvaluator(ort, original, samples());
  const rounder = await gptqRounder(original, [M, G, C], evaluator.observe);
  assert.equal(rounder.layers, 3);
  assert.equal(rounder.samples, 2);
  const tensorBits = { [M]: 4, [G]: 4, [C]: 4 };
  const rounded = rounder.model(tensorBits);
  assert.deepEqual(original, copy, 'the input is left alone');
  const [withInputs, nearest] = [await shrink(rounded, { scheme: 'channel', tensorBits, minElements: 1024 }), await shrink(original, { scheme: 'channel', tensorBits, minElements: 1024 })];
  // The engine gives back the rounded values (up to float32 rounding of the grid).
  const [given, back] = [readGraph(rounded), readGraph(await expand(withInputs.model))];
  for (const name of [M, G, C]) {
    const v = initializerValues(rounded, given.initializers.get(name)), q = initializerValues(await expand(withInputs.model), back.initializers.get(name));
    const scale = Math.max(...v.map(Math.abs));
    assert.ok(v.every((x, i) => Math.abs(x - q[i]) <= 1e-6 * scale), `${name}: the engine moved the rounded values`);
  }
  const [a, b] = [await evaluator.measure(withInputs.model), await evaluator.measure(nearest.model)];
  for (const [k, out] of a.calibration.perOutput.entries()) {
    const other = b.calibration.perOutput[k];
    assert.ok(out.relL2 < 0.8 * other.relL2, `${out.name}: ${out.relL2} against ${other.relL2} (nearest)`);
    assert.ok(a.heldOut.perOutput[k].relL2 < b.heldOut.perOutput[k].relL2, `${out.name} held out`);
  }
  // A depth past GPTQ_MAX_BITS, or a tensor not given: the original values.
  assert.equal(rounder.model({}), original);
});

test('a layer past GPTQ_MAX_INPUTS inputs keeps the nearest codes (no rounder for it)', async () => {
  const K = GPTQ_MAX_INPUTS + 1;
  const graph = [...field(1, node('MatMul', ['a', 'wide'], ['y'])), ...str(2, 'wide'),
                 ...field(5, tensor('wide', [K, 4], normals(K * 4, 61, 0.1))),
                 ...field(11, valueInfo('a', [2, K])), ...field(12, valueInfo('y', [2, 4]))];
  const wide = Uint8Array.from([...number(1, 8), ...field(8, number(2, 13)), ...field(7, graph)]);
  let observed = false;
  assert.equal(await gptqRounder(wide, ['wide'], async () => (observed = true)), null);
  assert.equal(observed, false, 'the model is not even run');
});

test('target mode damps the rounding by the share whose rounding erred least on the calibration half it did not see', async () => {
  const original = model();
  const made = await shrink(original, { target: 'relL2=0.05', samples: { a: samples()[0].bytes, x: samples()[1].bytes }, minElements: 1024 });
  const r = made.target.searches?.['channel+gptq']?.rounding ?? made.target.searches?.channel?.rounding;
  assert.ok(r?.measured, 'the rounding was checked');
  assert.deepEqual(r.measured.tried.map((t) => t.damping), GPTQ_DAMPINGS);
  const least = Math.min(...r.measured.tried.map((t) => t.with));
  assert.equal(r.measured.with, least);
  assert.equal(r.measured.damping, r.measured.tried.find((t) => t.with === least).damping);
  // The dampings give different roundings (else the choice would be empty).
  const evaluator = await makeEvaluator(ort, original, samples());
  const rounder = await gptqRounder(original, [M, G, C], evaluator.observe);
  const bits = { [M]: 4, [G]: 4, [C]: 4 };
  const weightOf = (bytes) => initializerValues(bytes, readGraph(bytes).initializers.get(M));
  const at = (damping) => weightOf(rounder.model(bits, undefined, damping));
  assert.notDeepEqual(at(GPTQ_DAMPINGS[0]), at(GPTQ_DAMPINGS.at(-1)));
  assert.deepEqual(weightOf(rounder.model(bits)), at(GPTQ_DAMPINGS[0]), 'the first damping by default');
  // Settled on one (what the check's halves needed dropped): that damping's rounding from then on.
  const second = at(GPTQ_DAMPINGS[1]);
  rounder.settle(GPTQ_DAMPINGS[1]);
  assert.deepEqual(weightOf(rounder.model(bits)), second);
});
