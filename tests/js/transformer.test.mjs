// The trained transformer fixture (tests/fixtures/char_transformer.onnx, a character-level causal
// language model: trained attention, LayerNorm and embedding weights; see tests/fixtures/README.md)
// in every mode and in target mode (issue 23): each output loads and runs in onnxruntime-node and
// in onnxruntime-web (its WebAssembly build, in Node), moves the next-character logits by no more
// than measured here (with margin), keeps the next-character decisions (argmax over the vocabulary)
// on held-out text, and is smaller than the original raw and after brotli.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { objectiveSize, shrink } from '../../bindings/js/index.node.js';
import { OutputComparison, sampleFeeds } from '../../bindings/js/verify.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixtures = path.join(root, 'tests', 'fixtures');
const model = readFileSync(path.join(fixtures, 'char_transformer.onnx'));
const tokens = readFileSync(path.join(fixtures, 'char_transformer_tokens.bin'));  // int64 [1, 128] each, back to back
const T = 128;
const SAMPLES = tokens.byteLength / (8 * T);
const inputs = [{ name: 'tokens', dtype: 'int64', shape: [1, T], bytes: tokens }];
const BROTLI = 9;  // the quality target mode measures with

ortWeb.env.wasm.numThreads = 1;

// Every mode, with bounds of about twice what was measured on this fixture (tests/fixtures/README.md):
// the relative L2 error of the logits over all samples, and the share of positions whose most
// likely next character is still the original's (2048 positions; a few are near-ties that any
// rounding may flip, 10 bits included).
const MODES = {
  int8: { options: {}, relL2: 0.005, agreement: 0.99 },
  channel: { options: { scheme: 'channel' }, relL2: 0.005, agreement: 0.99 },
  tensor: { options: { scheme: 'tensor' }, relL2: 0.01, agreement: 0.99 },
  palette: { options: { mode: 'palette' }, relL2: 0.01, agreement: 0.99, sameRaw: true },
  bits8: { options: { bits: 8 }, relL2: 0.005, agreement: 0.99 },
  bits9: { options: { bits: 9 }, relL2: 0.0025, agreement: 0.99 },
  bits10: { options: { bits: 10 }, relL2: 0.0015, agreement: 0.99 },
};
const measured = {};

// onnxruntime's outputs for every sample.
async function run(ort, bytes) {
  const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
  const outputs = [];
  for (const feeds of sampleFeeds(ort.Tensor, inputs)) outputs.push(await session.run(feeds));
  await session.release?.();
  return outputs;
}

// How far `candidate`'s outputs are from `reference`'s, over every sample (one output: logits).
function moved(reference, candidate) {
  const comparison = new OutputComparison({ argmax: true });
  reference.forEach((r, k) => comparison.add(r, candidate[k]));
  const [logits] = comparison.results();
  return logits;
}

// The share of positions whose most likely next character is the text's next character.
function nextCharacterAccuracy(outputs) {
  const ids = new BigInt64Array(tokens.buffer.slice(tokens.byteOffset, tokens.byteOffset + tokens.byteLength));
  let right = 0, count = 0;
  outputs.forEach(({ logits }, sample) => {
    const [, , vocab] = logits.dims;
    for (let p = 0; p + 1 < T; p++) {
      let best = 0;
      for (let v = 1; v < vocab; v++) if (logits.data[p * vocab + v] > logits.data[p * vocab + best]) best = v;
      right += BigInt(best) === ids[sample * T + p + 1] ? 1 : 0;
      count++;
    }
  });
  return right / count;
}

let reference, referenceWeb, originalBrotli;
before(async () => {
  reference = await run(ortNode, model);
  referenceWeb = await run(ortWeb, model);
  originalBrotli = objectiveSize(model, 'brotli', BROTLI);
});

test('the fixture is a trained model, and onnxruntime-web computes what onnxruntime-node does', () => {
  assert.ok(SAMPLES >= 16 && Number.isInteger(SAMPLES), `${SAMPLES} samples`);
  const accuracy = nextCharacterAccuracy(reference);
  // Always guessing the most common character (the space) is right 1 time in 4 on these samples;
  // this model reached 0.61 (tests/fixtures/README.md).
  assert.ok(accuracy > 0.5, `next-character accuracy ${accuracy}`);
  const web = moved(reference, referenceWeb);
  assert.ok(web.relL2 < 1e-4 && web.agreement === 1, JSON.stringify(web));
});

// One shrunk model: loads and runs in both runtimes, moved the outputs by at most `bounds`, smaller
// after brotli and, except for a palette (which keeps each tensor's float type), raw.
async function checkShrunk(t, name, shrunk, bounds) {
  const outputs = await run(ortNode, shrunk);
  const web = await run(ortWeb, shrunk);
  const m = moved(reference, outputs);
  const same = moved(outputs, web);
  const brotli = objectiveSize(shrunk, 'brotli', BROTLI);
  t.diagnostic(`${name}: ${shrunk.byteLength} bytes (original ${model.byteLength}), brotli-${BROTLI} ${brotli} ` +
               `(original ${originalBrotli}); rel. L2 ${m.relL2.toFixed(4)}, argmax kept ${m.agreement.toFixed(4)}, ` +
               `next-character accuracy ${nextCharacterAccuracy(outputs).toFixed(4)}`);
  assert.ok(same.relL2 < 1e-4, `onnxruntime-web against -node: ${JSON.stringify(same)}`);
  assert.ok(m.relL2 <= bounds.relL2, `rel. L2 ${m.relL2}`);
  assert.ok(m.agreement >= bounds.agreement, `argmax agreement ${m.agreement}`);
  if (bounds.sameRaw) assert.ok(shrunk.byteLength <= model.byteLength, 'raw');
  else assert.ok(shrunk.byteLength < model.byteLength, 'raw');
  assert.ok(brotli < originalBrotli, 'brotli');
  return { ...m, brotli };
}

for (const [name, { options, ...bounds }] of Object.entries(MODES)) {
  test(`${name}: runs in onnxruntime-node and -web, keeps the next-character decisions, smaller`, async (t) => {
    const { model: shrunk, report } = await shrink(model, options);
    // Every MatMul weight and both embeddings are treated (19 matrices, 2 embedding tables).
    assert.equal(report.tensors.filter((x) => x.changed && x.shape.reduce((a, b) => a * b, 1) >= 16384).length, 21);
    measured[name] = await checkShrunk(t, name, shrunk, bounds);
  });
}

test('each bit more moves the outputs less: 8, 9, 10 bits', () => {
  const [b8, b9, b10] = ['bits8', 'bits9', 'bits10'].map((k) => measured[k]?.relL2);
  assert.ok(b10 < 0.75 * b9 && b9 < 0.75 * b8, `rel. L2 ${b8}, ${b9}, ${b10}`);
  // The default is 8 bits plus a 9th where the float16 small tensors pay for it (here one tensor,
  // blocks.2.down, lowest SQNR but not among the tensors that move the logits most): the outputs
  // move about as much as with 8 bits everywhere (0.00245 both), no more.
  assert.ok(measured.int8.relL2 <= measured.bits8.relL2 * 1.1, `${measured.int8.relL2} against ${measured.bits8.relL2}`);
});

test('target agree=0.99 (argmax): met on the calibration half, reported on the held-out half, at most 0.8x the default\'s brotli bytes', async (t) => {
  const r = await shrink(model, { target: 'agree=0.99', decision: 'argmax', samples: { tokens }, shapes: { tokens: [1, T] } });
  const { chosen } = r.target;
  assert.equal(r.target.met, true);
  assert.equal(r.target.estimated, false);
  assert.ok(chosen.measured.agreement >= 0.99, JSON.stringify(chosen.measured));
  assert.ok(chosen.heldOut.agreement >= 0.98, JSON.stringify(chosen.heldOut));
  assert.equal(objectiveSize(r.model, 'brotli', BROTLI), chosen.bytes);
  const bits = Object.values(r.target.tensorBits);
  t.diagnostic(`target: bits per tensor ${JSON.stringify(r.target.tensorBits)}; ${r.target.points.length} points measured; ` +
               `calibration ${JSON.stringify(chosen.measured)}; held out ${JSON.stringify(chosen.heldOut)}`);
  assert.ok(Math.min(...bits) < 8, 'some tensors below 8 bits');
  const all = await checkShrunk(t, 'target agree=0.99', r.model, { relL2: 0.025, agreement: 0.98 });
  // The default keeps more decisions (>= 0.995 measured) for more bytes: 0.68x measured.
  const byDefault = objectiveSize((await shrink(model)).model, 'brotli', BROTLI);
  assert.ok(all.brotli <= 0.8 * byDefault, `${all.brotli} brotli bytes against the default's ${byDefault}`);
});
