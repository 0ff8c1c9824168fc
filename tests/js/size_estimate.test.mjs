// Target mode's size estimate (issue 23: within 5 % of the real whole-file size): on silero VAD, a few
// points of the greedy path built and measured by brotli -q 9 (the Node API's), gzip -9 and raw,
// and the estimates a search records for the points it builds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect, shrinkToTarget } from '../../bindings/js/index.node.js';
import { depthTable } from '../../bindings/js/target.js';
import { MEASURES, errors, measurePoints, spread, targetPath } from '../../bench/size_estimate.mjs';
import { modelBytes } from '../../bench/corpus.mjs';

const silero = modelBytes('silero');

test('silero VAD: the estimate is within 5 % of the whole file at points along the path, calibrated on either end', async () => {
  const rows = await depthTable(inspect, silero, {}, () => {});
  for (const m of MEASURES.filter((x) => x.key !== 'brotli11')) {
    const path = targetPath(rows, m);
    const points = await measurePoints(silero, rows, path, spread(path.length, 4), m);
    const { before, after } = errors(rows, m, points);
    assert.equal(after.length, 2 * (points.length - 1));
    assert.ok(Math.max(...after) <= 0.05, `${m.label}: ${after.map((e) => (100 * e).toFixed(2)).join(', ')} %`);
    // The tensors' entropies alone miss the rest of the file (by 10 % or more on silero).
    assert.ok(Math.max(...before) > 0.1, `${m.label} before: ${before.join(', ')}`);
  }
});

test('a search records each point\'s estimate: the first point built is its calibration, the others within 5 %', async () => {
  for (const objective of ['brotli', 'gzip']) {
    const r = await shrinkToTarget(silero, { target: 'size=0.12', objective });
    const points = r.target.points;
    assert.ok(points.length >= 4, `${points.length} points`);
    assert.equal(points[0].estimatedBytes, points[0].bytes);
    for (const p of points.slice(1)) {
      assert.ok(Math.abs(p.estimatedBytes / p.bytes - 1) <= 0.05, `${objective} step ${p.step}: ${p.estimatedBytes} estimated, ${p.bytes} real`);
    }
  }
});
