// Target mode's activation probe (bindings/js/activation_probe.js): the sensitivities from one run
// of the original with its readers' values as extra outputs agree with the one-at-a-time probe's
// on a small model whose tensors matter unequally (in onnxruntime-node and -web), and a search
// with it meets the target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { inspect, objectiveSize, shrink } from '../../bindings/js/index.node.js';
import { readGraph, withOutputs } from '../../bindings/js/onnx_graph.js';
import { PROBE_BITS, chooseProbe, makeEvaluator, searchTarget, sensitivities } from '../../bindings/js/target.js';

import { FLOAT, field, intAttribute, intsAttribute, node, normals, number, str, tensor, valueInfo } from './onnx_writer.mjs';

// a [4, 128] -> MatMul(A) -> ya, and Gemm(B, transB, a bias of 10: the products are a small part of
// yb, so B's rounding moves yb little) -> yb; x [1, 64, 8, 8] -> Conv(W, 2 groups) -> yc.
const A = 'mm.weight', B = 'gemm.weight', W = 'conv.weight';
function tinyModel() {
  const graph = [
    ...field(1, node('MatMul', ['a', A], ['ya'])),
    ...field(1, node('Gemm', ['a', B, 'gemm.bias'], ['yb'], [intAttribute('transB', 1)])),
    ...field(1, node('Conv', ['x', W], ['yc'], [intAttribute('group', 2), intsAttribute('pads', [1, 1, 1, 1])])),
    ...str(2, 'tiny'),
    ...field(5, tensor(A, [128, 128], normals(128 * 128, 1, 0.1))),
    ...field(5, tensor(B, [128, 128], normals(128 * 128, 2, 0.1))),
    ...field(5, tensor('gemm.bias', [128], new Array(128).fill(10))),
    ...field(5, tensor(W, [128, 32, 3, 3], normals(128 * 32 * 9, 3, 0.05))),
    ...field(11, valueInfo('a', [4, 128])), ...field(11, valueInfo('x', [1, 64, 8, 8])),
    ...field(12, valueInfo('ya', [4, 128])), ...field(12, valueInfo('yb', [4, 128])), ...field(12, valueInfo('yc', [1, 128, 8, 8])),
  ];
  return Uint8Array.from([...number(1, 8), ...field(8, number(2, 13)), ...field(7, graph)]);
}

// Four samples (two calibrated on); x's second group of channels four times the first's.
const SAMPLES = 4;
function samplesOf() {
  const x = normals(SAMPLES * 64 * 64, 5).map((v, i) => (Math.floor(i / 64) % 64 >= 32 ? 4 * v : v));
  return [{ name: 'a', dtype: 'float32', shape: [4, 128], bytes: new Uint8Array(Float32Array.from(normals(SAMPLES * 4 * 128, 4)).buffer) },
          { name: 'x', dtype: 'float32', shape: [1, 64, 8, 8], bytes: new Uint8Array(Float32Array.from(x).buffer) }];
}

const model = tinyModel();

test('the graph is read, and outputs added to it run in onnxruntime-node', async () => {
  const graph = readGraph(model);
  assert.deepEqual(graph.nodes.map((n) => n.opType), ['MatMul', 'Gemm', 'Conv']);
  assert.deepEqual(graph.inputs, ['a', 'x']);
  assert.deepEqual(graph.outputs, ['ya', 'yb', 'yc']);
  assert.deepEqual(graph.initializers.get(W).dims, [128, 32, 3, 3]);
  assert.equal(graph.nodes[2].attributes.group, 2);
  // An output without a type, one with: both run (typed here), beside the model's own.
  const wider = withOutputs(model, graph, [{ name: 'ya', elemType: 0 }]);
  assert.deepEqual(readGraph(wider).outputs, ['ya', 'yb', 'yc', 'ya']);
  const session = await ort.InferenceSession.create(withOutputs(model, graph, [{ name: 'a', elemType: FLOAT }]), { logSeverityLevel: 4 });
  assert.deepEqual(session.outputNames, ['ya', 'yb', 'yc', 'a']);
  await session.release();
});

test('activation gains agree with one-at-a-time gains, and the biased Gemm\'s weight matters least', async (t) => {
  const evaluator = await makeEvaluator(ort, model, samplesOf());
  const report = await inspect(model, { bits: PROBE_BITS });
  const rows = report.tensors.filter((t) => t.changed).map((t) => ({ name: t.name, at: { [PROBE_BITS]: { noise: 10 ** (-t.sqnrDb / 10) } } }));
  assert.deepEqual(rows.map((r) => r.name).sort(), [W, B, A].sort());
  const common = { shrink, model, options: {}, measure: evaluator.measure, observe: evaluator.observe, progress: () => {} };
  const each = await sensitivities(rows, { ...common, probe: 'each' });
  const activations = await sensitivities(rows, { ...common, probe: 'activations' });
  assert.equal(activations.probe, 'activations');
  const by = (s) => Object.fromEntries(rows.map((r, i) => [r.name, s.gains[i]]));
  const e = by(each), a = by(activations);
  t.diagnostic(`gains by activations ${JSON.stringify(a)}, one at a time ${JSON.stringify(e)}`);
  for (const name of [A, B, W]) {
    const ratio = a[name] / e[name];
    assert.ok(ratio > 0.5 && ratio < 2, `${name}: activation gain ${a[name]}, one at a time ${e[name]}`);
  }
  // onnxruntime-web (the page's; its WebAssembly build, in Node) takes the extra outputs alike.
  ortWeb.env.wasm.numThreads = 1;
  const web = await makeEvaluator(ortWeb, model, samplesOf());
  const onWeb = by(await sensitivities(rows, { ...common, measure: web.measure, observe: web.observe, probe: 'activations' }));
  for (const name of [A, B, W]) assert.ok(Math.abs(onWeb[name] / a[name] - 1) < 1e-3, `${name}: ${onWeb[name]} in onnxruntime-web, ${a[name]} in -node`);
  // yb is mostly its bias: B's rounding moves it a hundredth as much as A's moves ya.
  assert.ok(a[B] < a[A] / 20 && e[B] < e[A] / 20, JSON.stringify({ activations: a, each: e }));
  // The small corpus models get the one-at-a-time probe; a model of 150 MB with 13 tensors, activations.
  assert.equal(chooseProbe(rows, model.byteLength), 'each');
  assert.equal(chooseProbe(new Array(13), 150e6), 'activations');
});

test('a search with the activation probe meets relL2=0.01, giving the biased Gemm\'s weight fewer bits', async () => {
  const evaluator = await makeEvaluator(ort, model, samplesOf());
  const progress = [];
  const found = await searchTarget(model, {
    onProgress: (f, what) => progress.push([f, what]),
    engine: { shrink, inspect }, target: { kind: 'relL2', value: 0.01 }, objective: 'gzip', probe: 'activations',
    measure: evaluator.measure, observe: evaluator.observe, size: async (bytes) => objectiveSize(bytes, 'gzip'),
  });
  const t = found.target;
  assert.equal(t.met, true);
  assert.equal(t.probe, 'activations');
  assert.ok(t.chosen.measured.relL2 <= 0.01, JSON.stringify(t.chosen.measured));
  assert.equal(objectiveSize(found.model, 'gzip'), t.chosen.bytes);
  assert.ok(t.tensorBits[B] < t.tensorBits[A], JSON.stringify(t.tensorBits));
  // Progress through every stage, never going back.
  assert.ok(progress.every(([f], i) => f <= 1 && (i === 0 || f >= progress[i - 1][0])), JSON.stringify(progress));
  const stages = [...new Set(progress.map(([, what]) => what))];
  assert.deepEqual(stages, ['measuring each tensor at each bit depth', 'measuring how much each tensor moves the outputs',
                            'building and measuring candidates', 'sizing the points tried (gzip)']);
});
