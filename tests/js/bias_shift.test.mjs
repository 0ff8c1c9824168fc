// Target mode's data-aware bias correction (bindings/js/bias_shift.js): edits of a model's graph
// (a value moved, a bias added) run in onnxruntime-node as written and leave the input alone; with
// inputs whose channels have different means, moving the biases by the rounding's shift removes
// the shift of the outputs' channels; and the search reports whether it kept the correction.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ort from 'onnxruntime-node';
import { expand, inspect, objectiveSize, shrink } from '../../bindings/js/index.node.js';
import { biasCorrector } from '../../bindings/js/bias_shift.js';
import { readGraph, withEdits } from '../../bindings/js/onnx_graph.js';
import { makeEvaluator, searchTarget } from '../../bindings/js/target.js';
import { field, intAttribute, intsAttribute, node, normals, number, str, tensor, valueInfo } from './onnx_writer.mjs';

// x [1, 32, 8, 8] -> Conv(C, no bias) -> yc; a [16, 64] -> MatMul(M) -> Add(m.bias) -> ym, and
// Gemm(G, transB, g.bias) -> yg.
const C = 'conv.weight', M = 'mm.weight', G = 'gemm.weight';
function model() {
  const graph = [
    ...field(1, node('Conv', ['x', C], ['yc'], [intsAttribute('pads', [1, 1, 1, 1])])),
    ...field(1, node('MatMul', ['a', M], ['t'])),
    ...field(1, node('Add', ['t', 'm.bias'], ['ym'])),
    ...field(1, node('Gemm', ['a', G, 'g.bias'], ['yg'], [intAttribute('transB', 1)])),
    ...str(2, 'shifted'),
    ...field(5, tensor(C, [64, 32, 3, 3], normals(64 * 32 * 9, 11, 0.05))),
    ...field(5, tensor(M, [64, 256], normals(64 * 256, 12, 0.1))),
    ...field(5, tensor('m.bias', [256], normals(256, 13, 0.1))),
    ...field(5, tensor(G, [256, 64], normals(256 * 64, 14, 0.1))),
    ...field(5, tensor('g.bias', [256], normals(256, 15, 0.1))),
    ...field(11, valueInfo('x', [1, 32, 8, 8])), ...field(11, valueInfo('a', [16, 64])),
    ...field(12, valueInfo('yc', [1, 64, 8, 8])), ...field(12, valueInfo('ym', [16, 256])), ...field(12, valueInfo('yg', [16, 256])),
  ];
  return Uint8Array.from([...number(1, 8), ...field(8, number(2, 13)), ...field(7, graph)]);
}

// Four samples (two calibrated on): each input channel its own mean (from -3 to 3) plus noise.
const SAMPLES = 4;
function samplesOf() {
  const means = (n, seed) => normals(n, seed, 1.5);
  const cm = means(32, 21), am = means(64, 22);
  const x = normals(SAMPLES * 32 * 64, 23).map((v, i) => cm[Math.floor(i / 64) % 32] + v);
  const a = normals(SAMPLES * 16 * 64, 24).map((v, i) => am[i % 64] + v);
  return [{ name: 'x', dtype: 'float32', shape: [1, 32, 8, 8], bytes: new Uint8Array(Float32Array.from(x).buffer) },
          { name: 'a', dtype: 'float32', shape: [16, 64], bytes: new Uint8Array(Float32Array.from(a).buffer) }];
}

const original = model();
const feeds = (k) => {
  const [x, a] = samplesOf();
  const slice = (s, n) => new Float32Array(s.bytes.buffer.slice(4 * n * k, 4 * n * (k + 1)));
  return { x: new ort.Tensor('float32', slice(x, 32 * 64), x.shape), a: new ort.Tensor('float32', slice(a, 16 * 64), a.shape) };
};
async function outputsOf(bytes, k = 0) {
  const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
  const out = await session.run(feeds(k));
  await session.release();
  return out;
}

test('withEdits: a value moved and a bias added run as written, and the input (a Buffer) is left alone', async () => {
  const input = Buffer.from(original);
  const graph = readGraph(input);
  const conv = graph.nodes.find((n) => n.opType === 'Conv');
  const edited = withEdits(input, graph, {
    values: [{ tensor: graph.initializers.get('m.bias'), values: new Float32Array(256).fill(1) }],
    inputs: [{ node: conv, name: 'added.bias' }],
    initializers: [{ name: 'added.bias', dims: [64], values: Array.from({ length: 64 }, (_, i) => i / 8) }],
  });
  assert.deepEqual(input, Buffer.from(original));
  assert.deepEqual(readGraph(edited).nodes.find((n) => n.opType === 'Conv').inputs, ['x', C, 'added.bias']);
  const [before, after] = [await outputsOf(original), await outputsOf(edited)];
  assert.deepEqual(withEdits(original, graph, {}), original, 'no edits: the same bytes');
  for (let i = 0; i < 64 * 64; i++) assert.ok(Math.abs(after.yc.data[i] - before.yc.data[i] - Math.floor(i / 64) / 8) < 1e-5);
  const bias = readGraph(original).initializers.get('m.bias');
  const old = new Float32Array(original.buffer.slice(bias.data.raw[0], bias.data.raw[1]));
  for (let i = 0; i < 16 * 256; i++) assert.ok(Math.abs(after.ym.data[i] - before.ym.data[i] - (1 - old[i % 256])) < 1e-5);
  assert.deepEqual(after.yg.data, before.yg.data);
});

// Per output channel, the mean of (y - reference) over the calibration samples' positions; the
// root mean square of those means over the channels.
async function channelShift(bytes, name, channels, channelOf) {
  const sums = new Float64Array(channels), counts = new Float64Array(channels);
  for (let k = 0; k < SAMPLES / 2; k++) {
    const [y, ref] = [(await outputsOf(bytes, k))[name].data, (await outputsOf(original, k))[name].data];
    for (let i = 0; i < y.length; i++) sums[channelOf(i)] += y[i] - ref[i], counts[channelOf(i)]++;
  }
  return Math.sqrt(sums.reduce((s, v, c) => s + (v / counts[c]) ** 2, 0) / channels);
}

test('the correction removes the shift of the output channels that rounding causes', async () => {
  const evaluator = await makeEvaluator(ort, original, samplesOf());
  const corrector = await biasCorrector(original, [C, M, G], evaluator.observe);
  assert.equal(corrector.layers, 3);
  const tensorBits = { [C]: 4, [M]: 4, [G]: 4 };
  const plain = await shrink(original, { tensorBits });
  const fixed = await shrink(corrector.correct(await expand(plain.model)), { tensorBits });
  const [expandedPlain, expandedFixed] = [readGraph(await expand(plain.model)), readGraph(await expand(fixed.model))];
  assert.ok(expandedFixed.initializers.has(`${C}::bias_shift`), 'the Conv got a bias');
  assert.deepEqual(expandedFixed.initializers.get(M).dims, expandedPlain.initializers.get(M).dims);
  const shapes = { yc: [64, (i) => Math.floor(i / 64)], ym: [256, (i) => i % 256], yg: [256, (i) => i % 256] };
  for (const [name, [channels, channelOf]] of Object.entries(shapes)) {
    const before = await channelShift(plain.model, name, channels, channelOf), after = await channelShift(fixed.model, name, channels, channelOf);
    // (The Conv's padded border sees part of the means: there the shift is not the same.)
    assert.ok(after < (name === 'yc' ? 0.5 : 0.05) * before, `${name}: channel shift ${before} -> ${after}`);
  }
  const [a, b] = [await evaluator.measure(plain.model), await evaluator.measure(fixed.model)];
  assert.ok(b.calibration.relL2 < a.calibration.relL2, `${a.calibration.relL2} -> ${b.calibration.relL2}`);
});

test('target mode keeps the correction where it holds on samples its means did not come from, says so, and needs fewer bytes for it', async () => {
  const evaluator = await makeEvaluator(ort, original, samplesOf());
  const search = (engine) => searchTarget(original, { engine, target: { kind: 'relL2', value: 0.02 }, measure: evaluator.measure, observe: evaluator.observe,
                                                       size: (bytes) => objectiveSize(bytes, 'brotli', 9) });
  const withIt = await search({ shrink, inspect, expand });
  const without = await search({ shrink, inspect });
  const c = withIt.target.biasCorrection;
  assert.equal(c.layers, 3);
  assert.equal(c.kept, true);
  assert.ok(c.measured.with < c.measured.without && c.measured.bits === 8, JSON.stringify(c));
  assert.equal(without.target.biasCorrection, null);
  assert.ok(withIt.target.met && without.target.met);
  // Each point: its file with the biases moved and without, whichever errs less on the calibration samples.
  assert.ok(withIt.target.points.every((p) => p.biasMove && (p.biasesMoved === 3) === (p.biasMove.with < p.biasMove.without) &&
                                              p.measured.relL2 === Math.min(p.biasMove.with, p.biasMove.without)), JSON.stringify(withIt.target.points));
  assert.ok(withIt.target.points.some((p) => p.biasesMoved === 3));
  assert.deepEqual((await evaluator.measure(withIt.model)).calibration.relL2, withIt.target.chosen.measured.relL2);
  assert.ok(withIt.target.chosen.bytes < without.target.chosen.bytes, `${withIt.target.chosen.bytes} against ${without.target.chosen.bytes}`);
});

test('with one calibration sample the correction is not tried: nothing to check it on', async () => {
  const one = samplesOf().map((s) => ({ ...s, bytes: s.bytes.slice(0, s.bytes.byteLength / SAMPLES) }));
  const evaluator = await makeEvaluator(ort, original, one);
  assert.equal(evaluator.calibrate, 1);
  const found = await searchTarget(original, { engine: { shrink, inspect, expand }, target: { kind: 'relL2', value: 0.02 }, measure: evaluator.measure,
                                               observe: evaluator.observe, size: (bytes) => objectiveSize(bytes, 'brotli', 9) });
  assert.deepEqual(found.target.biasCorrection, { layers: 3, kept: false, measured: null });
  assert.ok(found.target.points.every((p) => p.biasesMoved === undefined));
});
