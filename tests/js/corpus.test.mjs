// Issue 2's accuracy line on the two real models and their real inputs (bench/corpus.mjs), through
// the JS API and onnxruntime-node: the default's decisions agree with the original's on at least
// 99.9 %, its relative L2 error is at most a quarter of the original tool's (scheme 'tensor'), at a
// size no more than 5 % above. (BENCHMARKS.md has the same over 16 re-roundings of each.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ort from 'onnxruntime-node';
import { compare, corpus, modelBytes } from '../../bench/corpus.mjs';
import { shrink } from '../../bindings/js/index.node.js';

for (const [name, spec] of Object.entries(corpus)) {
  test(`${name}: the default against the original tool's per-tensor scales`, async () => {
    const original = modelBytes(name);
    const reference = await spec.run(ort, original);
    const seed = (await shrink(original, { scheme: 'tensor' })).model;
    const made = await shrink(original);
    const byDefault = compare(reference, await spec.run(ort, made.model), spec.threshold);
    const bySeed = compare(reference, await spec.run(ort, seed), spec.threshold);
    assert.ok(byDefault.agreement >= 0.999, `decisions agree on ${byDefault.agreement}`);
    assert.ok(byDefault.relL2 <= 0.25 * bySeed.relL2, `rel. L2 ${byDefault.relL2} against the seed's ${bySeed.relL2}`);
    assert.ok(made.model.byteLength <= 1.05 * seed.byteLength, `${made.model.byteLength} bytes against ${seed.byteLength}`);
    // The small tensors' float16 paid for the low bits: no larger than 8-bit codes with them kept.
    const plain = (await shrink(original, { bits: 8, small: 'keep' })).model;
    assert.ok(made.model.byteLength <= plain.byteLength);
    assert.ok(made.report.tensors.some((t) => t.bits > 8));
  });
}
