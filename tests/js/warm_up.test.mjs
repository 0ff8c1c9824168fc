// The page's warm-up model (web/warm_up.js): a valid ONNX model, checked by the reference tools,
// the same bytes every time, and shrunk by the engine's default path (separable conv codes), so
// that warming on it exercises the code a user's conv net takes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ort from 'onnxruntime-node';
import { shrink } from '../../bindings/js/index.node.js';
import { warmUpModel } from '../../web/warm_up.js';
import { tempDir } from './temp_dir.mjs';

test('the warm-up model passes the ONNX checker, runs in onnxruntime-node, and is the same every time', async () => {
  const model = warmUpModel();
  assert.ok(Buffer.from(model).equals(Buffer.from(warmUpModel())));
  assert.ok(model.byteLength > 3e6 && model.byteLength < 4e6, `${model.byteLength} bytes`);
  const file = path.join(tempDir('warm-up'), 'warm.onnx');
  writeFileSync(file, model);
  const checked = spawnSync('/usr/bin/python3', ['-c', 'import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)', file]);
  assert.equal(checked.status, 0, String(checked.stderr));
  const session = await ort.InferenceSession.create(model);
  const x = new ort.Tensor('float32', new Float32Array(64 * 16 * 16).fill(0.5), [1, 64, 16, 16]);
  const { y } = await session.run({ x });
  assert.deepEqual(y.dims, [1, 256, 10, 10]);
  assert.ok(y.data.every(Number.isFinite));
  assert.ok(y.data.some((v) => v !== 0));
});

test('the warm-up model takes the default path of a conv net: every weight gets separable 8-bit codes, and palette shrinks too', async () => {
  const model = warmUpModel();
  const { report } = await shrink(model, {});
  assert.deepEqual(report.tensors.map((t) => t.scheme), ['separable', 'separable', 'separable', 'separable', 'separable']);
  const palette = await shrink(model, { mode: 'palette' });
  assert.ok(palette.report.tensors.every((t) => t.changed), 'every weight rounded to a palette');
});
