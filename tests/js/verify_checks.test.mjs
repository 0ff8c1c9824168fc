// onnx-shrink/verify's judgement of a check itself: which input dimensions it would guess (from
// the report's model inputs, as the engine writes them), and which outputs say nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspect } from '../../bindings/js/index.node.js';
import { guessedDimensions, oneSidedOutputs, OutputComparison, suspicions } from '../../bindings/js/verify.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

test('guessedDimensions names the open dimensions of the inputs given no shape, with their symbols from the report', async () => {
  const det = (await inspect(readFileSync(path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx')))).model.inputs;
  assert.deepEqual(guessedDimensions(det), [{ input: 'x', axis: 0, symbol: 'p2o.DynamicDimension.0' },
                                            { input: 'x', axis: 2, symbol: 'p2o.DynamicDimension.1' },
                                            { input: 'x', axis: 3, symbol: 'p2o.DynamicDimension.2' }]);
  assert.deepEqual(guessedDimensions(det, ['x']), []);
  // Unknown dimensions (null in the report) have no symbol; fixed ones and scalars are never guessed.
  const silero = (await inspect(readFileSync(path.join(fixtures, 'silero_vad_v5.onnx')))).model.inputs;
  assert.deepEqual(guessedDimensions(silero, new Set(['input'])), [{ input: 'state', axis: 1, symbol: '' }]);
  // A separate list of symbols is read where the shape holds none.
  assert.deepEqual(guessedDimensions([{ name: 'a', shape: [null, 4], symbols: ['batch', ''] }]), [{ input: 'a', axis: 0, symbol: 'batch' }]);
});

test('suspicions: an output constant in the original (more than one value), or identical in both on every sample', () => {
  const t = (...values) => ({ type: 'float32', data: Float32Array.from(values) });
  const compare = (...samples) => {
    const c = new OutputComparison();
    for (const [a, b] of samples) c.add(a, b);
    return c.results();
  };
  // One value is not "the same everywhere"; it is identical, though, when both models agree.
  const single = compare([{ y: t(0.5) }, { y: t(0.5) }]);
  assert.deepEqual(single.map((r) => [r.constant, r.identical]), [[false, true]]);
  assert.deepEqual(suspicions(single), ["output 'y' is identical in both models on every sample: the inputs may not exercise the changed weights"]);
  // (When nothing was shrunk, as the CLI and the page say it then.)
  assert.deepEqual(suspicions(single, { unchanged: true }), ["output 'y' is identical in both models on every sample: nothing was shrunk, so the check compared the model with itself"]);
  const flat = compare([{ y: t(2, 2) }, { y: t(2, 2.001) }], [{ y: t(2) }, { y: t(2) }]);
  assert.deepEqual(flat.map((r) => [r.constant, r.identical]), [[true, false]]);
  assert.deepEqual(suspicions(flat), ["output 'y' has the same value everywhere in the original model: the check says nothing about it"]);
  // A real difference in varying outputs: nothing to say.
  const fine = compare([{ y: t(1, 2), z: t(3, 4) }, { y: t(1.01, 2), z: t(3, 4.1) }]);
  assert.deepEqual(fine.map((r) => [r.constant, r.identical]), [[false, false], [false, false]]);
  assert.deepEqual(suspicions(fine), []);
  // NaN or infinity in the original: nothing can be measured against it, and the cosine is not 0.
  const nan = compare([{ y: t(1, NaN) }, { y: t(1, 2) }]);
  assert.deepEqual(nan.map((r) => [r.nonFinite, Number.isNaN(r.relL2), Number.isNaN(r.cosine)]), [[true, true, true]]);
  assert.deepEqual(suspicions(nan), ["output 'y' holds NaN or infinity in the original model on these inputs: its errors cannot be measured against it " +
                                     '(are the inputs the values the model takes?)']);
});

test('oneSidedOutputs: with a threshold, an output whose original values are all on one side of it', () => {
  const t = (...values) => ({ type: 'float32', data: Float32Array.from(values) });
  const compare = (threshold, ...samples) => {
    const c = new OutputComparison({ threshold });
    for (const [a, b] of samples) c.add(a, b);
    return c.results();
  };
  // A voice detector on silence: every value below 0.5, in the original (the other model's do not count).
  const silence = compare(0.5, [{ p: t(0.01, 0.2), q: t(0.1, 0.9) }, { p: t(0.6, 0.2), q: t(0.1, 0.9) }], [{ p: t(0.5) }, { p: t(0.4) }]);
  assert.deepEqual(silence.map((r) => r.oneDecision), [{ above: false }, null]);
  assert.deepEqual(oneSidedOutputs(silence, 0.5),
                   ["output 'p' is on one side of 0.5 on every sample (every value at or below it): the share on the same side says nothing about it"]);
  assert.match(oneSidedOutputs(compare(0.5, [{ p: t(0.7, 0.8) }, { p: t(0.7, 0.8) }]), 0.5)[0], /every value above it/);
  // A constant output is said by suspicions() already; argmax rows all at one place.
  assert.deepEqual(oneSidedOutputs(compare(0.5, [{ p: t(0, 0) }, { p: t(0, 0) }]), 0.5), []);
  const rows = new OutputComparison({ argmax: true });
  rows.add({ y: { data: Float32Array.from([0, 2, 1, 1, 3, 0]), dims: [2, 3] } }, { y: { data: Float32Array.from([2, 0, 1, 1, 3, 0]), dims: [2, 3] } });
  assert.deepEqual(rows.results()[0].oneDecision, { index: 1 });
});

test("OutputComparison: a streaming model's state (stateOutputs) is compared as values, not counted as decisions", () => {
  const t = (...values) => ({ type: 'float32', data: Float32Array.from(values) });
  const c = new OutputComparison({ threshold: 0.5, stateOutputs: ['stateN'] });
  c.add({ output: t(0.1, 0.9), stateN: t(0.4, 0.6) }, { output: t(0.2, 0.8), stateN: t(0.6, 0.4) });
  const [output, state] = c.results();
  assert.deepEqual([output.name, output.agreement, output.oneDecision], ['output', 1, null]);
  assert.equal(state.name, 'stateN');
  assert.equal('agreement' in state || 'oneDecision' in state, false);
  assert.ok(Math.abs(state.maxAbs - 0.2) < 1e-6);
});

test('sampleCount: a bool input\'s bytes are 0 or 1 (onnxruntime reads 7 as false)', async () => {
  const { sampleCount } = await import('../../bindings/js/verify.js');
  const mask = (bytes) => [{ name: 'mask', dtype: 'bool', shape: [1, 4], bytes: Uint8Array.from(bytes) }];
  assert.equal(sampleCount(mask([0, 1, 1, 0, 1, 1, 1, 1])), 2);
  assert.throws(() => sampleCount(mask([0, 1, 7, 0])), /^Error: input 'mask' is bool: each of its bytes must be 0 or 1, but byte 2 of the data given is 7$/);
});
