// The trained transformer fixture (tests/fixtures/char_transformer.onnx: attention, LayerNorm,
// embeddings; opset 17) in the page: shrunk in Chromium to the native driver's bytes, and checked in
// onnxruntime-web on its own token file, with the error onnxruntime-node finds for the same files.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = path.join(root, 'tests', 'fixtures');
const native = process.env.ONNX_SHRINK_CLI || path.join(root, 'build', 'onnx-shrink');
const model = path.join(fixtures, 'char_transformer.onnx');
const tokens = readFileSync(path.join(fixtures, 'char_transformer_tokens.bin'));  // 16 samples of [1, 128] int64
const work = mkdtempSync(path.join(tmpdir(), 'onnx-shrink-e2e-transformer-'));
test.afterAll(() => {
  if (!process.env.ONNX_SHRINK_KEEP_TEST_FILES) rmSync(work, { recursive: true, force: true });
});

// Every sample's logits, one after another.
async function logits(file) {
  const session = await ort.InferenceSession.create(file);
  const ids = new BigInt64Array(tokens.buffer.slice(tokens.byteOffset, tokens.byteOffset + tokens.byteLength));
  const out = [];
  for (let k = 0; k < ids.length / 128; k++) {
    out.push(...(await session.run({ tokens: new ort.Tensor('int64', ids.subarray(k * 128, (k + 1) * 128), [1, 128]) })).logits.data);
  }
  return out;
}

test('the trained transformer: shrunk in the page as natively, and checked in onnxruntime-web on its tokens', async ({ page }) => {
  await page.goto('/');
  await page.setInputFiles('#file', model);
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 150_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
  const saved = path.join(work, download.suggestedFilename());
  await download.saveAs(saved);
  const reference = path.join(work, 'native.onnx');
  expect(spawnSync(native, [model, '-o', reference, '-q']).status).toBe(0);
  expect(readFileSync(saved).equals(readFileSync(reference))).toBe(true);

  // The check on the fixture's own tokens (its open dimensions set: batch 1, 128 characters).
  await page.fill('#check-shape-0', '1x128');
  await page.setInputFiles('#check-file-0', { name: 'tokens.i64', mimeType: 'application/octet-stream', buffer: tokens });
  await page.click('#check-run');
  await expect(page.locator('#check-status')).toContainText('(16 samples)', { timeout: 150_000 });
  const row = page.locator('#check-table tbody tr:first-child');
  await expect(row.locator('td:nth-child(1)')).toHaveText('logits');
  const shown = Number(await row.locator('td:nth-child(4)').textContent());
  const [a, b] = [await logits(model), await logits(reference)];
  let difference = 0, energy = 0;
  for (let i = 0; i < a.length; i++) difference += (a[i] - b[i]) ** 2, energy += a[i] ** 2;
  const expected = Math.sqrt(difference / energy);
  expect(expected).toBeGreaterThan(0);
  expect(Math.abs(shown - expected)).toBeLessThan(0.02 * expected);
});
