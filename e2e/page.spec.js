// The web page in Debian's Chromium: what a user does, checked against the reference tools.
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { compare, corpus } from '../bench/corpus.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = path.join(root, 'tests', 'fixtures');
const native = process.env.ONNX_SHRINK_CLI || path.join(root, 'build', 'onnx-shrink');
const work = path.join(tmpdir(), 'onnx-shrink-e2e');
mkdirSync(work, { recursive: true });
test.afterAll(() => {
  if (!process.env.ONNX_SHRINK_KEEP_TEST_FILES) rmSync(work, { recursive: true, force: true });
});

async function shrinkOnPage(page, files, mode = 'int8') {
  await page.goto('/');
  await page.check(`input[name=mode][value=${mode}]`);
  await page.setInputFiles('#file', files);
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 150_000 });
}

async function saved(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
  const file = path.join(work, download.suggestedFilename());
  await download.saveAs(file);
  return { file, name: download.suggestedFilename() };
}

const bytesOf = async (page, which) => Number(await page.locator(`[data-size="${which}"]`).getAttribute('data-bytes'));

for (const [name, spec] of Object.entries(corpus)) {
  for (const mode of ['int8', 'palette']) {
    test(`${name} in ${mode} mode: sizes, the saved file, and the model it is`, async ({ page }) => {
      await shrinkOnPage(page, path.join(fixtures, spec.file), mode);
      const shown = await bytesOf(page, 'shrunk-raw');
      expect(await bytesOf(page, 'original-raw')).toBe(readFileSync(path.join(fixtures, spec.file)).byteLength);
      const { file, name: fileName } = await saved(page);
      expect(fileName).toBe(spec.file.replace('.onnx', '.shrunk.onnx'));
      const bytes = readFileSync(file);
      expect(bytes.byteLength).toBe(shown);
      // The page's result is the native driver's, byte for byte.
      const reference = path.join(work, `${name}.${mode}.native.onnx`);
      const p = spawnSync(native, [path.join(fixtures, spec.file), '-o', reference, '-q', '--mode', mode]);
      expect(p.status).toBe(0);
      expect(bytes.equals(readFileSync(reference))).toBe(true);
      // And it runs in onnxruntime-node on the real input with the original's decisions.
      const before = await spec.run(ort, readFileSync(path.join(fixtures, spec.file)));
      const after = await spec.run(ort, bytes);
      expect(compare(before, after, spec.threshold).agreement).toBeGreaterThanOrEqual(0.99);
      // gzip and brotli shrink too.
      expect(await bytesOf(page, 'shrunk-gzip')).toBeLessThan(await bytesOf(page, 'original-gzip'));
      expect(await bytesOf(page, 'shrunk-brotli')).toBeLessThan(await bytesOf(page, 'original-brotli'));
    });
  }
}

test('the engine worker is warmed while the page waits, and a warmed one gives the native driver\'s model, run after run', async ({ page }) => {
  const det = path.join(fixtures, corpus.det.file);
  await page.goto('/');
  const body = page.locator('body');
  await expect(body).toHaveAttribute('data-engine-warm', 'yes', { timeout: 60_000 });
  for (const mode of ['int8', 'palette']) {
    await page.check(`input[name=mode][value=${mode}]`);
    if (mode === 'int8') await page.setInputFiles('#file', det);
    await expect(page.locator('#status')).toHaveText('Done.', { timeout: 150_000 });
    await expect(page.locator('#summary')).toHaveAttribute('data-engine-warmed', 'true');
    // (det's default gives each of its 18 large tensors 10 bits; palette keeps the size)
    await expect(page.locator('#summary')).toHaveText(mode === 'int8' ? 'Stored 18 tensors as 10-bit codes, turned back into floats when the model loads. ' +
        'The 9th and 10th bits are the 8-bit mode\'s own: the bytes float16 saves on the small tensors pay for them, so the file is no larger than with 8-bit codes and the small tensors kept.'
      : 'Rounded 18 tensors to a palette of values: the file keeps its size and compresses far better.');
    const { file } = await saved(page);
    const reference = path.join(work, `det.warm.${mode}.native.onnx`);
    expect(spawnSync(native, [det, '-o', reference, '-q', '--mode', mode]).status).toBe(0);
    expect(readFileSync(file).equals(readFileSync(reference))).toBe(true);
    // Once the run is done, the next worker is started and warmed.
    await expect(body).toHaveAttribute('data-engine-warm', 'yes', { timeout: 60_000 });
  }
});

test('the scheme list follows the mode, and each scheme gives the native driver\'s model', async ({ page }) => {
  const det = path.join(fixtures, corpus.det.file);
  await shrinkOnPage(page, det);
  await page.click('#advanced summary');
  const schemes = async () => page.locator('#scheme option').evaluateAll((os) => os.map((o) => o.value));
  expect(await schemes()).toEqual(['auto', 'channel', 'tensor']);
  const same = async (args) => {
    const { file } = await saved(page);
    const reference = path.join(work, `det.${args.join('')}.native.onnx`);
    expect(spawnSync(native, [det, '-o', reference, '-q', ...args]).status).toBe(0);
    expect(readFileSync(file).equals(readFileSync(reference))).toBe(true);
  };
  // The default gives det's tensors 10 bits (its small tensors' float16 pays for them).
  await expect(page.locator('#tensors tbody tr').first()).toContainText('10 bits');
  await page.selectOption('#scheme', 'channel');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(page.locator('#tensors tbody tr').first()).toContainText('channel');
  await same(['--scheme', 'channel']);
  await page.selectOption('#bits', '8');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await page.selectOption('#small', 'keep');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(page.locator('#tensors tbody tr').first()).toContainText('channel, 8 bits');
  await same(['--scheme', 'channel', '--bits', '8', '--small', 'keep']);
  await page.check('input[name=mode][value=palette]');
  await expect(page.locator('#bits')).toBeDisabled();
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  expect(await schemes()).toEqual(['auto', 'kmeans', 'uniform']);
  expect(await page.locator('#scheme').inputValue()).toBe('auto');  // channel is not a palette scheme
  await page.selectOption('#scheme', 'uniform');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await same(['--mode', 'palette', '--scheme', 'uniform']);
});

test('the sample model, the cost arithmetic, and settings that persist', async ({ page }, info) => {
  await page.goto('/');
  await page.click('#sample');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await page.fill('#price', '0.5');
  await page.fill('#downloads', '1000');
  await page.selectOption('#served', 'raw');
  const before = await bytesOf(page, 'original-raw'), after = await bytesOf(page, 'shrunk-raw');
  const cents = (x) => (Math.abs(x) < 1000 ? 2 : 0);  // cents up to $1,000; under a cent said so
  const money = (x) => (x > 0 && x < 0.005 ? '< $0.01'
    : x.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: cents(x), maximumFractionDigits: cents(x) }));
  const month = (b) => (b / 2 ** 30) * 0.5 * 1000;
  await expect(page.locator('[data-cost="before-month"]')).toHaveText(money(month(before)));
  await expect(page.locator('[data-cost="after-month"]')).toHaveText(money(month(after)));
  await expect(page.locator('[data-cost="save-year"]')).toHaveText(money(12 * (month(before) - month(after))));
  await page.screenshot({ path: info.outputPath('result.png'), fullPage: true });
  await info.attach('result view', { path: info.outputPath('result.png'), contentType: 'image/png' });
  await page.reload();
  await expect(page.locator('#price')).toHaveValue('0.5');
  await expect(page.locator('#downloads')).toHaveValue('1000');
});

test('no request leaves the origin, and none carries the model', async ({ page, baseURL }) => {
  const requests = [];
  page.on('request', (r) => requests.push({ url: r.url(), method: r.method(), body: r.postDataBuffer()?.byteLength ?? 0 }));
  await page.goto('/');
  await page.click('#sample');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await page.check('input[name=mode][value=palette]');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await saved(page);
  await page.fill('#check-shape-0', '1x512');
  await page.fill('#check-value-2', '16000');
  await page.click('#check-run');
  await expect(page.locator('#check-table')).toBeVisible({ timeout: 90_000 });
  expect(requests.length).toBeGreaterThan(5);
  for (const r of requests) {
    expect(r.url.startsWith(baseURL) || r.url.startsWith('blob:') || r.url.startsWith('data:'), r.url).toBe(true);
    expect(['GET', 'HEAD']).toContain(r.method);
    expect(r.body).toBe(0);
  }
  // onnxruntime-web was fetched only for the check, from this site.
  expect(requests.some((r) => r.url.includes('/vendor/ort/'))).toBe(true);
});

test('the sample comes with its check set up: synthetic speech, streamed as in use', async ({ page }) => {
  await page.goto('/');
  await page.click('#sample');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(page.locator('#check-status')).toContainText('Set up for the sample');
  await expect(page.locator('#check-shape-0')).toHaveValue('1x512');
  await expect(page.locator('#check-feed-1')).toHaveValue('stateN');
  // By keyboard: Enter on the button; focus goes to Stop while it runs, and comes back after.
  await page.focus('#check-run');
  await page.keyboard.press('Enter');
  await expect(page.locator('#check-status')).toContainText('Data from files for input (208 samples)', { timeout: 90_000 });
  await expect(page.locator('#check-run')).toBeFocused();
  // The error and the decisions are bench/corpus.mjs's for the native driver's model.
  const shrunk = path.join(work, 'silero.sample.onnx');
  expect(spawnSync(native, [path.join(fixtures, 'silero_vad_v5.onnx'), '-o', shrunk, '-q']).status).toBe(0);
  const expected = compare(await corpus.silero.run(ort, readFileSync(path.join(fixtures, 'silero_vad_v5.onnx'))),
                           await corpus.silero.run(ort, readFileSync(shrunk)), 0.5);
  const row = page.locator('#check-table tbody tr:first-child');
  await expect(row.locator('td:nth-child(1)')).toHaveText('output');
  expect(Math.abs(Number(await row.locator('td:nth-child(4)').textContent()) - expected.relL2)).toBeLessThan(0.01 * expected.relL2);
  expect(await row.locator('td:nth-child(6)').textContent()).toBe(`${(100 * expected.agreement).toFixed(3)} %`);
  // With a threshold the check can pass: every output keeps 99.9 % of its decisions or more.
  const verdict = page.locator('#check-verdict');
  await expect(verdict).toHaveAttribute('data-verdict', 'checked');
  await expect(verdict).toHaveClass(/\bok\b/);
  await expect(verdict).toContainText('Every output keeps 99.9 % or more of its decisions at 0.5.');
  // A palette of 16 values (the fewest the page offers) moves the speech probability across 0.5: a
  // warning naming the output.
  await page.check('input[name=mode][value=palette]');
  await page.fill('#levels', '4');
  await page.dispatchEvent('#levels', 'change');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await page.click('#check-run');
  await expect(verdict).toHaveAttribute('data-verdict', 'decisions', { timeout: 90_000 });
  await expect(verdict).toHaveClass(/\bwarn\b/);
  await expect(verdict).toContainText('Decisions changed: fewer than 99.9 % kept at the threshold 0.5.');
  await expect(verdict).toContainText(/'output': \d+\.\d{3} % of its values on the same side of 0\.5 in both models\./);
  // Another model starts with a set-up of its own.
  await page.setInputFiles('#file', path.join(fixtures, corpus.det.file));
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 150_000 });
  await expect(page.locator('#check-threshold')).toHaveValue('');
  await expect(page.locator('#check-file-0')).toHaveValue('');
});

test('check accuracy runs both models in onnxruntime-web', async ({ page }) => {
  await page.goto('/');
  await page.setInputFiles('#file', path.join(fixtures, 'silero_vad_v5.onnx'));
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await page.click('#check-run');  // unknown dimensions as 1: silero cannot run that
  await expect(page.locator('#check-error')).toContainText('Could not compare', { timeout: 90_000 });
  await page.fill('#check-shape-0', '1x512');
  await page.fill('#check-value-2', '16000');
  await page.click('#check-run');
  await expect(page.locator('#check-table')).toBeVisible({ timeout: 90_000 });
  const rows = await page.locator('#check-table tbody tr').allTextContents();
  expect(rows.length).toBe(2);
  const cosine = Number(await page.locator('#check-table tbody tr:first-child td:nth-child(5)').textContent());
  expect(cosine).toBeGreaterThan(0.99);
  const relL2 = async () => Number(await page.locator('#check-table tbody tr:first-child td:nth-child(4)').textContent());
  const randomError = await relL2();
  expect(randomError).toBeGreaterThan(0);  // 8-bit codes do move the outputs, a little
  expect(randomError).toBeLessThan(0.05);

  // Real data from files: four chunks of the corpus speech back to back, and four zero states:
  // four samples. The error the page reports is the one onnxruntime-node finds for the native
  // driver's model on the same four inputs. A shape with open dimensions must be confirmed first:
  // the model declares state as [2, ?, 128], and the page has guessed 2x1x128.
  const chunks = readFileSync(path.join(fixtures, 'speech.bin')).subarray(4 * 16000, 4 * 16000 + 4 * 4 * 512);
  const zeros = Buffer.alloc(4 * 256);
  await page.setInputFiles('#check-file-0', { name: 'chunks.f32', mimeType: 'application/octet-stream', buffer: chunks });
  await page.setInputFiles('#check-file-1', { name: 'states.f32', mimeType: 'application/octet-stream', buffer: Buffer.alloc(4 * zeros.length) });
  await page.click('#check-run');
  await expect(page.locator('#check-error')).toContainText("input 'state' leaves some of its dimensions open, guessed here as [2, 1, 128] (1024 bytes of float32 " +
                                                            'a sample); the data given has 4096 bytes, which a guess cannot split into samples: set its shape', { timeout: 90_000 });
  await page.fill('#check-shape-1', '2x1x128');
  await page.click('#check-run');
  await expect(page.locator('#check-status')).toContainText('Data from files for input, state (4 samples)', { timeout: 90_000 });
  const shrunk = path.join(work, 'silero.check.onnx');
  expect(spawnSync(native, [path.join(fixtures, 'silero_vad_v5.onnx'), '-o', shrunk, '-q']).status).toBe(0);
  const outputsOf = async (file) => {
    const session = await ort.InferenceSession.create(file);
    const out = [];
    for (let k = 0; k < 4; k++) {
      const chunk = chunks.subarray(k * 2048, (k + 1) * 2048);
      out.push(...(await session.run({
        input: new ort.Tensor('float32', new Float32Array(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength)), [1, 512]),
        state: new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]),
        sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
      })).output.data);
    }
    return out;
  };
  const [a, b] = [await outputsOf(path.join(fixtures, 'silero_vad_v5.onnx')), await outputsOf(shrunk)];
  const expected = Math.hypot(...a.map((v, i) => v - b[i])) / Math.hypot(...a);
  const realError = await relL2();
  expect(realError).not.toBe(randomError);
  expect(Math.abs(realError - expected)).toBeLessThan(0.01 * expected + 1e-6);

  // Streamed as in use: all 208 chunks, the state starting at zero and then fed back from each
  // model's own stateN. The error is the one bench/corpus.mjs measures in onnxruntime-node.
  await page.setInputFiles('#check-file-0', { name: 'speech.f32', mimeType: 'application/octet-stream',
                                              buffer: readFileSync(path.join(fixtures, 'speech.bin')).subarray(0, 208 * 2048) });
  await page.setInputFiles('#check-file-1', []);
  await page.fill('#check-value-1', '0');
  await page.selectOption('#check-feed-1', 'stateN');
  await page.click('#check-run');
  await expect(page.locator('#check-status')).toContainText('Data from files for input (208 samples)', { timeout: 90_000 });
  const streamed = compare(await corpus.silero.run(ort, readFileSync(path.join(fixtures, 'silero_vad_v5.onnx'))),
                           await corpus.silero.run(ort, readFileSync(shrunk)), 0.5).relL2;
  expect(Math.abs(await relL2() - streamed)).toBeLessThan(0.01 * streamed);
  await page.selectOption('#check-feed-1', '');
  await page.fill('#check-value-1', '');

  // Data of the wrong size is named, with what the input takes.
  await page.setInputFiles('#check-file-0', { name: 'short.f32', mimeType: 'application/octet-stream', buffer: zeros });
  await page.click('#check-run');
  await expect(page.locator('#check-error')).toContainText("input 'input' of shape [1, 512] and type float32 takes 2048 bytes per sample, the data given has 1024", { timeout: 90_000 });
});

test('a float16 model: the check makes half inputs and reads half outputs as numbers; the tensor table gives the notes', async ({ page }) => {
  // fp16 input and output, and weights at the edge of fp16's range (tests/python/models.py).
  const made = spawnSync('/usr/bin/python3', [path.join(root, 'tests', 'python', 'models.py'), work, 'values_at_the_limits']);
  expect(made.status, String(made.stderr)).toBe(0);
  await shrinkOnPage(page, path.join(work, 'values_at_the_limits.onnx'));
  await page.fill('#check-value-0', '0.001');
  await page.fill('#check-value-1', '0.001');
  await page.click('#check-run');
  await expect(page.locator('#check-table')).toBeVisible({ timeout: 90_000 });
  const cells = async (row) => (await page.locator(`#check-table tbody tr:nth-child(${row}) td`).allTextContents());
  const y16 = await cells(1);
  expect(y16[0]).toContain('y16');
  expect(Number(y16[3])).toBeGreaterThan(0);  // 8-bit codes move it a little
  expect(Number(y16[3])).toBeLessThan(0.01);  // compared as bits, it would be far off
  expect(Number(y16[4])).toBeGreaterThan(0.9999);
  expect(await page.locator('#check-table tbody tr').count()).toBe(6);
  // The tensor table says what was left alone and why, and what was rounded inward (the original
  // tool's scale puts -65504 past the largest fp16).
  const row = (name) => page.locator('#tensors tbody tr', { has: page.locator(`td:text-is("${name}")`) });
  await expect(row('wide')).toContainText('kept: its values span more than float32 can hold');
  await page.click('#advanced summary');
  await page.selectOption('#scheme', 'tensor');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(row('m16')).toContainText("tensor, 8 bits; 1 value at the edge of float16's range rounded inward");
});

test('compare schemes: each scheme checked on the same data, as the CLI finds, and one picked', async ({ page }) => {
  const det = path.join(fixtures, corpus.det.file);
  await shrinkOnPage(page, det);
  await page.fill('#check-shape-0', '1x3x320x640');
  await page.setInputFiles('#check-file-0', path.join(fixtures, 'det_x.bin'));
  // "Stop" ends a comparison under way.
  await page.click('#compare-run');
  await page.click('#check-stop');
  await expect(page.locator('#check-status')).toHaveText('Stopped.');
  await expect(page.locator('#compare-run')).toBeEnabled();
  await expect(page.locator('#check-stop')).toBeHidden();
  await page.click('#compare-run');
  await expect(page.locator('#compare-table')).toBeVisible({ timeout: 150_000 });
  await expect(page.locator('#check-status')).toContainText('Each scheme on data from files for x (1 sample); on this few samples, which scheme');
  const rows = await page.locator('#compare-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  expect(rows.map((r) => r[0].split(' ')[0])).toEqual(['auto', 'channel', 'tensor']);
  const errors = rows.map((r) => Number(r[3].split(' ')[0]));
  // The same numbers as the CLI's (onnxruntime-node) for the same schemes on the same data.
  const cli = spawnSync(process.execPath, [path.join(root, 'bindings', 'js', 'cli.js'), det, '-o', path.join(work, 'det.cli.onnx'), '--json',
                                           '--scheme', 'auto,channel,tensor', '--verify', '--shape', 'x=1x3x320x640', '--input', `x=${path.join(fixtures, 'det_x.bin')}`],
                        { encoding: 'utf8' });
  expect(cli.status).toBe(0);
  const expected = JSON.parse(cli.stdout).candidates.map((c) => c.outputs[0].relL2);
  errors.forEach((e, i) => expect(Math.abs(e - expected[i])).toBeLessThan(0.01 * expected[i]));
  // The row marked is the one with least error; "Use" makes it the result and keeps the table.
  const best = errors.indexOf(Math.min(...errors));
  expect(rows.filter((r) => r[0].includes('least error')).map((r) => r[0])).toEqual([`${rows[best][0]}`]);
  const scheme = rows[best][0].split(' ')[0];
  const inUse = await page.locator('#scheme').inputValue();  // its row's button says so, and does nothing
  await expect(page.locator(`#compare-table button[data-scheme=${inUse}]`)).toBeDisabled();
  await expect(page.locator(`#compare-table button[data-scheme=${inUse}]`)).toHaveText(`${inUse}: in use`);
  if (scheme !== inUse) {
    await page.click(`#compare-table button:has-text("Use ${scheme}")`);
    await expect(page.locator('#compare-table')).toBeFocused();  // its button now off, focus stays in the table
    await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  }
  expect(await page.locator('#scheme').inputValue()).toBe(scheme);
  await expect(page.locator(`#compare-table button[data-scheme=${scheme}]`)).toHaveText(`${scheme}: in use`);
  expect(await page.locator('#compare-table button:enabled').count()).toBe(2);
  await expect(page.locator('#compare-table')).toBeVisible();
  expect(await page.locator('#check-shape-0').inputValue()).toBe('1x3x320x640');  // the check's inputs stay for the same model
  const { file } = await saved(page);
  const reference = path.join(work, `det.use-${scheme}.native.onnx`);
  expect(spawnSync(native, [det, '-o', reference, '-q', '--scheme', scheme]).status).toBe(0);
  expect(readFileSync(file).equals(readFileSync(reference))).toBe(true);
  // With a decision threshold, the check also shows the share of pixels kept on the same side,
  // as bench/corpus.mjs counts them in onnxruntime-node (PaddleOCR binarises at 0.3).
  await page.fill('#check-threshold', '0.3');
  await page.click('#check-run');
  await expect(page.locator('#check-table')).toBeVisible({ timeout: 90_000 });
  const kept = Number((await page.locator('#check-table tbody tr:first-child td:nth-child(6)').textContent()).replace(' %', ''));
  const agreement = compare(await corpus.det.run(ort, readFileSync(det)), await corpus.det.run(ort, readFileSync(file)), 0.3).agreement;
  expect(Math.abs(kept - 100 * agreement)).toBeLessThanOrEqual(0.002);  // a pixel is 0.0005 %
  expect(kept).toBeLessThan(100);
});

test('a corrupt file shows what is wrong, and a good file afterwards works', async ({ page }) => {
  const broken = path.join(work, 'broken.onnx');
  writeFileSync(broken, readFileSync(path.join(fixtures, 'silero_vad_v5.onnx')).subarray(0, 500_000));
  await page.goto('/');
  await page.setInputFiles('#file', broken);
  await expect(page.locator('#error')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('#error')).toContainText('cut short');
  const text = path.join(work, 'notes.onnx');
  writeFileSync(text, '<html>not a model</html>');
  await page.setInputFiles('#file', text);
  await expect(page.locator('#error')).toContainText('not an ONNX model', { timeout: 30_000 });
  await page.setInputFiles('#file', path.join(fixtures, 'silero_vad_v5.onnx'));
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(page.locator('#error')).toBeHidden();
  await expect(page.locator('#results')).toBeVisible();
  // A bad file after a good one: the good one's result goes, nothing is left to save by mistake.
  await page.setInputFiles('#file', broken);
  await expect(page.locator('#error')).toContainText('cut short', { timeout: 30_000 });
  await expect(page.locator('#results')).toBeHidden();
});

test('a file the model does not refer to is not counted; a result made with other settings is dimmed, then put away on a cancel; the same file can be chosen again', async ({ page }) => {
  const silero = path.join(fixtures, 'silero_vad_v5.onnx');
  await page.goto('/');
  // Another file dropped with the model: not its external data, so not the original's bytes.
  const stray = path.join(work, 'notes.txt');
  writeFileSync(stray, 'not a part of the model\n'.repeat(4000));
  await page.setInputFiles('#file', [silero, stray]);
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(page.locator('#summary')).toContainText("Not used: notes.txt (the model refers to no such external data file; not counted in the original's size).");
  expect(await bytesOf(page, 'original-raw')).toBe(statSync(silero).size);
  await expect(page.locator('#file')).toHaveValue('');  // the chooser can give the same file again
  // Another mode: the 8-bit result stays in view, dimmed and not to be saved, until the palette one
  // comes; cancelled before it does, it is put away (one synchronous step, so the run cannot finish first).
  const seen = await page.evaluate(() => {
    const palette = document.querySelector('input[name=mode][value=palette]');
    palette.checked = true;
    palette.dispatchEvent(new Event('change', { bubbles: true }));
    const during = { stale: document.getElementById('results').dataset.stale, save: document.getElementById('save').disabled,
                     exported: document.getElementById('export-json').disabled };
    document.getElementById('cancel').click();
    return { during, hidden: document.getElementById('results').hidden, status: document.getElementById('status').textContent };
  });
  expect(seen).toEqual({ during: { stale: 'true', save: true, exported: true }, hidden: true,
                         status: 'Cancelled. Change a setting, or choose the file again, to shrink it.' });
  await page.setInputFiles('#file', silero);
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(page.locator('#summary')).toContainText('Rounded 12 tensors to a palette');
  await expect(page.locator('#results')).not.toHaveAttribute('data-stale', /./);
  await expect(page.locator('#save')).toBeEnabled();
  // A change run to its end: the new result, saved as shown.
  await page.check('input[name=mode][value=int8]');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  await expect(page.locator('#summary')).toContainText('Stored 12 tensors as codes of 8 to 10 bits');
  await expect(page.locator('#save')).toBeEnabled();
  expect(statSync((await saved(page)).file).size).toBe(await bytesOf(page, 'shrunk-raw'));
});

test('external data: the page names the missing file, uses both, and saves a model and its data file', async ({ page }) => {
  const model = path.join(work, 'summed.onnx');
  if (!existsSync(model)) {
    const p = spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '20', model, '--external', '--sum']);
    expect(p.status).toBe(0);
  }
  await page.goto('/');
  await page.setInputFiles('#file', model);
  await expect(page.locator('#error')).toContainText('Drop "summed.onnx.data" together with the model', { timeout: 30_000 });
  await page.setInputFiles('#file', [model, `${model}.data`]);
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  expect(await bytesOf(page, 'original-raw')).toBe(readFileSync(model).byteLength + readFileSync(`${model}.data`).byteLength);
  await expect(page.locator('#save-data')).toBeHidden();  // auto: the result fits in one file
  const x = new ort.Tensor('float32', Float32Array.from({ length: 1024 }, (_, i) => Math.cos(i)), [1, 1024]);
  const a = await (await ort.InferenceSession.create(model)).run({ x });
  const inline = await saved(page);
  const b = await (await ort.InferenceSession.create(inline.file)).run({ x });
  expect(compare(a.y.data, b.y.data, 0).relL2).toBeLessThan(0.02);

  // The weights in a separate file: two saves, and onnxruntime finds the data file beside the model.
  await page.click('#advanced > summary');
  await page.selectOption('#external-data', 'external');
  await expect(page.locator('#save-data')).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  const folder = mkdtempSync(path.join(work, 'saved-'));
  const [modelDownload] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
  const [dataDownload] = await Promise.all([page.waitForEvent('download'), page.click('#save-data')]);
  expect(modelDownload.suggestedFilename()).toBe('summed.shrunk.onnx');
  expect(dataDownload.suggestedFilename()).toBe('summed.shrunk.onnx.data');
  await modelDownload.saveAs(path.join(folder, modelDownload.suggestedFilename()));
  await dataDownload.saveAs(path.join(folder, dataDownload.suggestedFilename()));
  const modelBytes = statSync(path.join(folder, 'summed.shrunk.onnx')).size, dataBytes = statSync(path.join(folder, 'summed.shrunk.onnx.data')).size;
  expect(modelBytes).toBeLessThan(100_000);
  expect(modelBytes + dataBytes).toBe(await bytesOf(page, 'shrunk-raw'));
  const c = await (await ort.InferenceSession.create(path.join(folder, 'summed.shrunk.onnx'))).run({ x });
  expect(Array.from(c.y.data)).toEqual(Array.from(b.y.data));
});

// The engine runs off the page's thread: what that guarantees is that the page's own thread is
// never blocked for a good part of the engine's time, however busy the machine is (its own speed
// scales both). So the test compares the page thread's longest task and longest frame gap with
// the engine's time in the same run, with a wide margin, and prints the frame gaps.
test('a 300 MB model (read through a window of File slices): frames keep coming, and the result is the native driver\'s', async ({ page }) => {
  const big = path.join(work, 'big300.onnx');
  if (!existsSync(big)) expect(spawnSync('/usr/bin/python3', [path.join(root, 'bench', 'make_model.py'), '300', big]).status).toBe(0);
  await page.goto('/');
  await page.evaluate(() => {
    window.heartbeat = { last: performance.now(), gaps: [], longTasks: [] };
    const beat = (t) => {
      window.heartbeat.gaps.push(t - window.heartbeat.last);
      window.heartbeat.last = t;
      requestAnimationFrame(beat);
    };
    requestAnimationFrame(beat);
    // Tasks of 50 ms or more on the page's thread.
    new PerformanceObserver((list) => window.heartbeat.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
  });
  await page.setInputFiles('#file', big);
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 170_000 });
  const beat = await page.evaluate(() => window.heartbeat);
  const engineMs = Number(await page.locator('#summary').getAttribute('data-engine-ms'));
  const gaps = [...beat.gaps].sort((a, b) => a - b);
  const at = (q) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))];
  const longest = Math.max(0, ...beat.longTasks);
  const blocked = beat.longTasks.reduce((a, b) => a + b, 0);
  console.log(`heartbeat: engine ${engineMs.toFixed(0)} ms; ${gaps.length} frames, gaps median ${at(0.5).toFixed(0)} ms, ` +
              `95th percentile ${at(0.95).toFixed(0)} ms, longest ${gaps.at(-1).toFixed(0)} ms; ${beat.longTasks.length} long tasks on the ` +
              `page's thread, ${blocked.toFixed(0)} ms in all, longest ${longest.toFixed(0)} ms`);
  expect(engineMs).toBeGreaterThan(0);
  expect(gaps.length).toBeGreaterThan(20);
  // Were the engine on the page's thread, one task (and one frame gap) would last its whole time.
  expect(longest).toBeLessThan(engineMs / 4);
  expect(blocked).toBeLessThan(engineMs / 2);
  expect(gaps.at(-1)).toBeLessThan(engineMs / 4);
  expect(await bytesOf(page, 'shrunk-raw')).toBeLessThan(0.3 * (await bytesOf(page, 'original-raw')));
  const { file } = await saved(page);
  const reference = path.join(work, 'big300.native.onnx');
  expect(spawnSync(native, [big, '-o', reference, '-q']).status).toBe(0);
  expect(readFileSync(file).equals(readFileSync(reference))).toBe(true);
});

test('keyboard, labels, dark colours and a phone-width window', async ({ page }) => {
  await page.goto('/');
  // Every control has an accessible name.
  const unnamed = await page.evaluate(() =>
    [...document.querySelectorAll('input, select, button, [role=button]')]
      .filter((e) => !e.closest('[hidden]') && e.type !== 'file')
      .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim() || e.closest('label')))
      .map((e) => e.outerHTML));
  expect(unnamed).toEqual([]);
  // The drop zone opens the file chooser from the keyboard: Enter and Space click the file input,
  // within the key press (the user activation a chooser needs). Whether Chromium then shows its
  // dialog is the browser's part; Playwright's interception of it proved unreliable under load.
  await page.evaluate(() => {
    window.fileClicks = 0;
    document.getElementById('file').addEventListener('click', (e) => {
      window.fileClicks++;
      window.activated = navigator.userActivation.isActive;
      e.preventDefault();
    });
  });
  await page.focus('#drop');
  await page.keyboard.press('Enter');
  await page.keyboard.press(' ');
  expect(await page.evaluate(() => [window.fileClicks, window.activated])).toEqual([2, true]);
  await page.setInputFiles('#file', path.join(fixtures, 'silero_vad_v5.onnx'));
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 60_000 });
  // Palette mode shows the levels control, 8-bit hides it.
  await expect(page.locator('#levels-row')).toBeHidden();
  await page.keyboard.press('Tab');
  await page.check('input[name=mode][value=palette]');
  await expect(page.locator('#levels-row')).toBeVisible();
  await page.emulateMedia({ colorScheme: 'dark' });
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).toBe('rgb(20, 21, 25)');
  await page.setViewportSize({ width: 375, height: 800 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // While the compressed sizes are measured, the size columns read "measuring…", one long word: the
  // table still fits (a loaded machine once caught the page in that state, 24 px too wide).
  const measuring = await page.evaluate(() => {
    document.querySelectorAll('#sizes td[data-size]').forEach((td) => { td.textContent = 'measuring…'; });
    return document.documentElement.scrollWidth - window.innerWidth;
  });
  expect(measuring).toBeLessThanOrEqual(0);
});

// The documented example (web/example.js): shrink in the page, then onnxruntime-web runs the model
// on the corpus inputs; the decisions agree with the original model's. Same through expand().
test('example: shrink right before onnxruntime-web loads the model, on the corpus inputs', async ({ page }) => {
  await page.route('**/corpus/*', (route) => route.fulfill({ body: readFileSync(path.join(fixtures, path.basename(new URL(route.request().url()).pathname))) }));
  await page.goto('/example.html');
  await page.click('#run');
  await expect(page.locator('#out')).toContainText('speech probability', { timeout: 60_000 });
  const result = await page.evaluate(async () => {
    const { ort, originalSession, shrunkSession } = await import('/example.js');
    const floats = async (name) => new Float32Array(await (await fetch(`/corpus/${name}`)).arrayBuffer());
    const speech = await floats('speech.bin'), page = await floats('det_x.bin');
    const silero = async (session) => {
      let state = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
      const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
      const out = [];
      for (let i = 0; i + 512 <= speech.length; i += 512) {
        const r = await session.run({ input: new ort.Tensor('float32', speech.slice(i, i + 512), [1, 512]), state, sr });
        out.push(r.output.data[0]);
        state = r.stateN;
      }
      return out;
    };
    const det = async (session) => Array.from((await session.run({ x: new ort.Tensor('float32', page, [1, 3, 320, 640]) }))[session.outputNames[0]].data);
    const agreement = (a, b, t) => a.filter((v, i) => (v > t) === (b[i] > t)).length / a.length;
    const result = {};
    for (const [name, run, threshold] of [['silero_vad_v5', silero, 0.5], ['ch_PP-OCRv4_det_infer', det, 0.3]]) {
      const url = `/corpus/${name}.onnx`;
      const reference = await run(await originalSession(url));
      const shrunk = await shrunkSession(url);
      const expanded = await shrunkSession(url, { expanded: true });
      result[name] = { shrunk: agreement(reference, await run(shrunk.session), threshold),
                       expanded: agreement(reference, await run(expanded.session), threshold),
                       ratio: shrunk.bytes / shrunk.originalBytes, count: reference.length };
    }
    // shrink(fetch(url)): a Response, or a promise of one, is a model; a failed download an error.
    const { shrink } = await import('/vendor/onnx-shrink/bindings/js/index.js');
    const url = '/corpus/silero_vad_v5.onnx';
    const viaFetch = (await shrink(fetch(url))).model;
    const viaBytes = (await shrink(new Uint8Array(await (await fetch(url)).arrayBuffer()))).model;
    result.fetchSame = viaFetch.length === viaBytes.length && viaFetch.every((v, i) => v === viaBytes[i]);
    result.missing = await shrink(fetch('/no-such-model.onnx')).then(() => 'no error', (e) => `${e.code}: ${e.message}`);
    return result;
  });
  console.log(JSON.stringify(result));
  expect(result.fetchSame).toBe(true);
  expect(result.missing).toMatch(/^IO: the model's download failed: HTTP 404/);
  delete result.fetchSame;
  delete result.missing;
  for (const r of Object.values(result)) {
    expect(r.count).toBeGreaterThan(200);
    expect(r.shrunk).toBeGreaterThanOrEqual(0.999);
    expect(r.expanded).toBeGreaterThanOrEqual(0.999);
    expect(r.ratio).toBeLessThan(0.4);
  }
});
