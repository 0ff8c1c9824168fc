// The page's part of "Trust and polish": a check that cannot pass by accident (guessed shapes, an
// output with one value, decisions all one way), what the sizes and costs assume, the state of
// the page (progress, cancel, errors, the price), where the bytes go and the exported report,
// keyboard use, and the result view at 1280 and 390 px (screenshots kept in test-results/).
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shrink } from '../bindings/js/index.node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = path.join(root, 'tests', 'fixtures');
const det = path.join(fixtures, 'ch_PP-OCRv4_det_infer.onnx');
const silero = path.join(fixtures, 'silero_vad_v5.onnx');

async function shrinkOnPage(page, file) {
  await page.goto('/');
  await page.setInputFiles('#file', file);
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 150_000 });
}

// The sample model, shrunk; `measured`: its compressed sizes too (brotli at quality 11 takes a while).
async function sample(page, { measured = true } = {}) {
  await page.goto('/');
  await page.click('#sample');
  if (measured) await expect(page.locator('#status')).toHaveText('Done.', { timeout: 90_000 });
  else await expect(page.locator('#results')).toBeVisible({ timeout: 60_000 });
}

const bytesOf = async (page, which) => Number(await page.locator(`[data-size="${which}"]`).getAttribute('data-bytes'));

async function downloaded(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

// --- 1. a check on guessed shapes ----------------------------------------------------------------

test('a check on guessed input shapes is not a pass: it names each guessed dimension, where to set it, and the suspicious output', async ({ page }, info) => {
  await shrinkOnPage(page, det);
  // Before the check: the dimensions it would guess are named.
  await expect(page.locator('#check-guess')).toContainText('x axis 0 (p2o.DynamicDimension.0), axis 2 (p2o.DynamicDimension.1), axis 3 (p2o.DynamicDimension.2)');
  await page.click('#check-run');
  const verdict = page.locator('#check-verdict');
  await expect(verdict).toBeVisible({ timeout: 90_000 });
  // PP-OCR det on 1x3x1x1: every output value the same, no error at all, cosine 1. Not a pass.
  await expect(verdict).toHaveAttribute('data-verdict', 'guessed');
  await expect(verdict).toHaveClass(/\bwarn\b/);
  await expect(verdict).not.toHaveClass(/\bok\b/);
  await expect(verdict).toContainText('Not a pass: the check guessed input dimensions');
  await expect(verdict.locator('li[data-input="x"]')).toContainText(
    'x: axis 0 (p2o.DynamicDimension.0), axis 2 (p2o.DynamicDimension.1), axis 3 (p2o.DynamicDimension.2), each set to 1 (the model declares ?x3x?x?)');
  await expect(verdict.locator('.suspicions')).toContainText("Output 'sigmoid_0.tmp_0' has the same value everywhere in the original model");
  await expect(page.locator('#check-table tbody tr:first-child .tag')).toBeVisible();
  await expect(page.locator('#check-table caption')).toContainText('not a pass');
  // The verdict is drawn in the warning colours, not the error's nor the pass's.
  const colours = await page.evaluate(() => {
    const css = getComputedStyle(document.documentElement);
    return { box: getComputedStyle(document.getElementById('check-verdict')).backgroundColor, warn: css.getPropertyValue('--warn-bg').trim() };
  });
  expect(colours.box).toBe('rgb(255, 243, 220)');
  expect(colours.warn).toBe('#fff3dc');
  await page.screenshot({ path: info.outputPath('check-guessed.png'), fullPage: true });
  await info.attach('check on guessed shapes', { path: info.outputPath('check-guessed.png'), contentType: 'image/png' });
  // "Set the shape of x" goes to the field that sets it.
  await verdict.locator('button', { hasText: 'Set the shape of x' }).click();
  await expect(page.locator('#check-shape-0')).toBeFocused();
  // With the shape and the real page given, the check is a check, with no suspicion; without a
  // threshold it is neither a pass nor a fail (neutral colours).
  await page.fill('#check-shape-0', '1x3x320x640');
  await expect(page.locator('#check-guess')).toBeHidden();
  await page.setInputFiles('#check-file-0', path.join(fixtures, 'det_x.bin'));
  await page.click('#check-run');
  await expect(verdict).toHaveAttribute('data-verdict', 'checked', { timeout: 90_000 });
  await expect(verdict).toHaveClass(/\binfo\b/);
  await expect(verdict).toContainText('No threshold was set, so this is no pass or fail');
  await expect(verdict).toContainText("The output that moved most, 'sigmoid_0.tmp_0'");
  await expect(page.locator('#check-table .tag')).toHaveCount(0);
  expect(Number(await page.locator('#check-table tbody tr:first-child td:nth-child(4)').textContent())).toBeGreaterThan(0);
  // At the decision threshold, the 8-bit default keeps 99.974 % of det's pixels: a pass (green).
  await page.fill('#check-threshold', '0.3');
  await page.click('#check-run');
  await expect(verdict).toContainText('Every output keeps 99.9 % or more of its decisions at 0.3.', { timeout: 90_000 });
  await expect(verdict).toHaveAttribute('data-verdict', 'checked');
  await expect(verdict).toHaveClass(/\bok\b/);
  // A threshold no value reaches: every decision the same in both models, said, not counted a pass.
  await page.fill('#check-threshold', '2');
  await page.click('#check-run');
  await expect(verdict).toHaveAttribute('data-verdict', 'suspicious', { timeout: 90_000 });
  await expect(verdict).toHaveClass(/\bwarn\b/);
  await expect(verdict.locator('.suspicions')).toContainText(
    "Output 'sigmoid_0.tmp_0' is on one side of 2 on every sample (every value at or below it): the share on the same side says nothing about it.");
});

test('a check that fails on guessed shapes names them in its error', async ({ page }) => {
  await shrinkOnPage(page, silero);
  await page.click('#check-run');  // silero cannot run on input 1x1
  const error = page.locator('#check-error');
  await expect(error).toBeVisible({ timeout: 90_000 });
  await expect(error).toContainText('Could not compare');
  await expect(error.locator('li[data-input="input"]')).toContainText('input: axis 0, axis 1, each set to 1 (the model declares ?x?)');
  await expect(error.locator('li[data-input="state"]')).toContainText('state: axis 1, each set to 1 (the model declares 2x?x128)');
  await expect(page.locator('#check-verdict')).toBeHidden();
});

// --- 3. what "served as" assumes --------------------------------------------------------------

test('"served as" says what it assumes of the host, and how to get it', async ({ page }) => {
  await sample(page, { measured: false });
  const note = page.locator('#served-note');
  await expect(note).toContainText('Content-Encoding: br');
  await expect(note).toContainText('Many hosts do not compress .onnx files');
  await expect(note).toContainText("precompress: ['br', 'gzip']");
  await expect(note).toContainText('model.onnx.br and model.onnx.gz');
  await page.selectOption('#served', 'gzip');
  await expect(note).toContainText('Content-Encoding: gzip');
  await page.selectOption('#served', 'raw');
  await expect(note).toContainText('Uncompressed');
  await expect(page.locator('#served')).toHaveAttribute('aria-describedby', 'served-note');
});

// --- 6. page state ----------------------------------------------------------------------------

test('the measurement of the compressed sizes moves in small steps to done', async ({ page }) => {
  await page.goto('/');
  // Every text the status line shows, in order.
  await page.evaluate(() => {
    window.statusTexts = [];
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) window.statusTexts.push(n.textContent);
    }).observe(document.getElementById('status'), { childList: true, characterData: true, subtree: true });
  });
  await page.click('#sample');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 90_000 });
  const texts = await page.evaluate(() => window.statusTexts);
  const measuring = texts.map((t) => /^Measuring compressed sizes… (\d+) %$/.exec(t)).filter(Boolean).map((m) => Number(m[1]));
  console.log(`measuring: ${measuring.length} steps: ${measuring.join(' ')}`);
  expect(measuring.length).toBeGreaterThan(10);
  const steps = [...measuring, 100].map((p, i, all) => p - (i ? all[i - 1] : 0));
  expect(Math.min(...steps)).toBeGreaterThanOrEqual(0);  // never back
  expect(Math.max(...steps)).toBeLessThanOrEqual(10);    // no stall followed by a jump
  expect(measuring.at(-1)).toBeGreaterThanOrEqual(95);
});

test('cancelled while the sizes are measured: "not measured", and they can be measured after all', async ({ page }) => {
  await page.goto('/');
  await page.click('#sample');
  await expect(page.locator('#status')).toContainText(/Measuring compressed sizes… \d+ %/, { timeout: 60_000 });
  await page.click('#cancel');
  await expect(page.locator('#status')).toHaveText('Cancelled.');
  await expect(page.locator('#progress')).toBeHidden();
  // Brotli at quality 11 takes seconds on the sample: it was not measured, and nothing says it is being.
  await expect(page.locator('[data-size="shrunk-brotli"]')).toHaveText('not measured');
  await expect(page.locator('#results')).not.toContainText('measuring…');
  await expect(page.locator('#costs')).not.toContainText('…');
  await expect(page.locator('#brotli-note')).toContainText('cancelled');
  await page.click('#measure');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 90_000 });
  await expect(page.locator('#measure')).toBeHidden();
  expect(await bytesOf(page, 'shrunk-brotli')).toBeGreaterThan(0);
  expect(await bytesOf(page, 'shrunk-brotli')).toBeLessThan(await bytesOf(page, 'original-brotli'));
  await expect(page.locator('#costs')).toContainText('$');
});

test('the price is per GiB, and a negative price or download count is refused', async ({ page }) => {
  await sample(page, { measured: false });
  await expect(page.locator('label[for=price]')).toHaveText('Price per GiB of egress (USD)');
  await page.fill('#price', '-0.12');
  await expect(page.locator('#cost-error')).toBeVisible();
  await expect(page.locator('#cost-error')).toHaveText('The price cannot be negative.');
  await expect(page.locator('#price')).toHaveAttribute('aria-invalid', 'true');
  for (const cell of await page.locator('#costs td').allTextContents()) expect(cell).toBe('–');
  await page.fill('#price', '0.12');
  await page.fill('#downloads', '-5');
  await expect(page.locator('#cost-error')).toHaveText('Downloads per month cannot be negative.');
  await page.fill('#downloads', '1024');
  await expect(page.locator('#cost-error')).toBeHidden();
  await expect(page.locator('#price')).toHaveAttribute('aria-invalid', 'false');
  // Per GiB: 2^30 bytes at $0.12, 1024 times a month.
  await page.selectOption('#served', 'raw');
  const before = await bytesOf(page, 'original-raw');
  const cents = (x) => (Math.abs(x) < 1000 ? 2 : 0);  // cents up to $1,000; under a cent said so
  const money = (x) => (x > 0 && x < 0.005 ? '< $0.01'
    : x.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: cents(x), maximumFractionDigits: cents(x) }));
  await expect(page.locator('[data-cost="before-month"]')).toHaveText(money((before / 2 ** 30) * 0.12 * 1024));
});

test('errors of a check look like errors, and no earlier result stays under an error', async ({ page }) => {
  await sample(page, { measured: false });
  await page.click('#check-run');
  await expect(page.locator('#check-table')).toBeVisible({ timeout: 90_000 });
  await expect(page.locator('#check-verdict')).toHaveAttribute('data-verdict', 'checked');
  await page.fill('#check-shape-0', '1xa');
  await page.click('#check-run');
  const error = page.locator('#check-error');
  await expect(error).toBeVisible();
  await expect(error).toHaveAttribute('role', 'alert');
  await expect(error).toContainText("the shape of 'input' should look like 1x3x224x224");
  const [box, expected] = await page.evaluate(() => [getComputedStyle(document.getElementById('check-error')).backgroundColor,
                                                     getComputedStyle(document.getElementById('error')).backgroundColor]);
  expect(box).toBe(expected);
  expect(box).toBe('rgb(253, 236, 236)');
  // The last check's numbers were for other inputs: they go.
  await expect(page.locator('#check-table')).toBeHidden();
  await expect(page.locator('#check-verdict')).toBeHidden();
  // A check that works again clears the error.
  await page.fill('#check-shape-0', '1x512');
  await page.click('#check-run');
  await expect(page.locator('#check-table')).toBeVisible({ timeout: 90_000 });
  await expect(error).toBeHidden();
  // The page's own error box: the sample failing to load after a result leaves no result under it.
  await page.route('**/samples/*', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.click('#sample');
  await expect(page.locator('#error')).toContainText('Could not load the sample');
  await expect(page.locator('#results')).toBeHidden();
});

// --- 7. where the bytes go, and the exported report ----------------------------------------------

test('where the bytes go: a chart of the sizes, the parts of the file, and tensor rows that add up to it', async ({ page }) => {
  await shrinkOnPage(page, det);
  const { report } = await shrink(readFileSync(det));
  const t = report.totals;
  const original = await bytesOf(page, 'original-raw'), shrunk = await bytesOf(page, 'shrunk-raw');
  // The chart: original and shrunk for file, gzip and brotli, on one scale.
  await expect(page.locator('#size-chart')).toBeVisible();
  await expect(page.locator('#size-chart .chart-group')).toHaveCount(3);
  const widths = await page.locator('#size-chart .chart-group[data-kind=raw] .chart-fill').evaluateAll((fills) =>
    fills.map((f) => f.getBoundingClientRect().width / f.parentElement.getBoundingClientRect().width));
  expect(widths[0]).toBeCloseTo(1, 2);
  expect(widths[1]).toBeCloseTo(shrunk / original, 2);
  const brotliShrunk = await bytesOf(page, 'shrunk-brotli');
  const brotliWidth = await page.locator('#size-chart .chart-group[data-kind=brotli] .chart-row.shrunk .chart-fill').evaluate((f) =>
    f.getBoundingClientRect().width / f.parentElement.getBoundingClientRect().width);
  expect(brotliWidth).toBeCloseTo(brotliShrunk / original, 2);
  await expect(page.locator('#size-chart .chart-group[data-kind=raw] .chart-row.shrunk .chart-value')).toHaveText('1.70 MB, 2.8× smaller');
  // The parts: the large tensors, the 324 small ones (75 now float16), and the graph.
  const legend = page.locator('#breakdown .legend');
  await expect(legend.locator('li[data-part=changed]')).toHaveText('18 large tensors, shrunk: 4.13 MB → 1.34 MB (3.1× smaller)');
  await expect(legend.locator('li[data-part=small]')).toHaveText('324 smaller tensors, 75 of them now float16: 558.6 kB → 281.5 kB (1.98× smaller)');
  await expect(legend.locator('li[data-part=graph]')).toContainText('Graph and the rest');
  await expect(page.locator('#breakdown .seg')).toHaveCount(6);
  // The table's rows under the tensors add up to the files.
  const foot = async (part, column) => Number(await page.locator(`#tensors tfoot tr[data-part=${part}] td:nth-child(${column})`).getAttribute('data-bytes'));
  expect(await foot('total', 2)).toBe(original);
  expect(await foot('total', 3)).toBe(shrunk);
  expect(await foot('small', 2)).toBe(t.smallTensorBytes);
  expect(await foot('small', 3)).toBe(t.smallTensorBytesAfter);
  expect(await foot('large', 2)).toBe(report.tensors.reduce((a, x) => a + x.bytesBefore, 0));
  for (const column of [2, 3]) {
    expect((await foot('large', column)) + (await foot('small', column)) + (await foot('graph', column))).toBe(await foot('total', column));
  }
  await expect(page.locator('#tensors tfoot tr[data-part=small]')).toContainText('75 as float16, 249 kept');
  // Which ones: named under the note, as the report has them.
  const names = page.locator('#tensors tfoot tr[data-part=small] details.float16-names');
  await expect(names.locator('li')).toHaveCount(75);
  await expect(names.locator('li').first()).toBeHidden();
  await names.locator('summary').click();
  await expect(names.locator('li').first()).toBeVisible();
  await expect(names.locator('li').first()).toHaveText(report.float16Tensors[0].graph === 'main' ? report.float16Tensors[0].name
    : `${report.float16Tensors[0].name} (in ${report.float16Tensors[0].graph})`);
  await expect(page.locator('#tensors tfoot tr[data-part=total]')).toContainText('2.8× smaller, saves 64.3 %');
});

test('the report exports as JSON and as a readable summary', async ({ page }) => {
  await sample(page);
  let json = await downloaded(page, '#export-json');
  expect(json.name).toBe('silero_vad_v5.shrink-report.json');
  let x = JSON.parse(json.text);
  const size = readFileSync(silero).byteLength;
  expect(x.files).toEqual([{ name: 'silero_vad_v5.onnx', bytes: size }]);
  expect(x.sizes.original.raw).toBe(size);
  expect(x.sizes.shrunk.raw).toBe(x.result.bytes);
  expect(x.sizes.change.raw.text).toMatch(/^2\.8× smaller, saves \d+\.\d %$/);
  expect(x.report.totals.modelBytesBefore).toBe(size);
  expect(x.options.mode).toBe('int8');
  expect(x.breakdown.before.total).toBe(size);
  expect(x.check).toBe(null);
  // After a check, the report has it.
  await page.click('#check-run');
  await expect(page.locator('#check-table')).toBeVisible({ timeout: 90_000 });
  json = await downloaded(page, '#export-json');
  x = JSON.parse(json.text);
  expect(x.check.samples).toBe(208);
  expect(x.check.verdict).toBe('checked');
  expect(x.check.guessedDimensions).toEqual([]);
  expect(x.check.outputs.map((o) => o.name)).toEqual(['output', 'stateN']);
  // The sample's check feeds stateN back as the state: its values are compared, not counted as decisions.
  expect(x.check.outputs[0].agreement).toBeGreaterThan(0.99);
  expect(x.check.outputs[1].agreement).toBeUndefined();
  expect(x.check.inputs[0]).toEqual({ name: 'input', dtype: 'float32', shape: [1, 512], file: 'speech.f32' });
  const summary = await downloaded(page, '#export-summary');
  expect(summary.name).toBe('silero_vad_v5.shrink-report.md');
  for (const text of ['# onnx-shrink: silero_vad_v5.onnx', '## Sizes', `| File | 2.33 MB (${size.toLocaleString('en-US')} B) |`,
                      '2.8× smaller, saves', '## Where the bytes go', '## Accuracy', '| output |', 'decision threshold 0.5',
                      '## What the download costs']) {
    expect(summary.text).toContain(text);
  }
});

// --- 8. the page's words and numbers -----------------------------------------------------------

test('sizes in one wording ("N× smaller, saves P %"), and the page claims what was measured', async ({ page }) => {
  await shrinkOnPage(page, det);
  await expect(page.locator('#sizes thead')).toContainText('Smaller by');
  for (const kind of ['raw', 'gzip', 'brotli']) {
    const before = await bytesOf(page, `original-${kind}`), after = await bytesOf(page, `shrunk-${kind}`);
    await expect(page.locator(`[data-saving="${kind}"]`)).toHaveText(
      `${(before / after).toFixed(1)}× smaller, saves ${(100 * (1 - after / before)).toFixed(1)} %`);
  }
  // No "about 4×": the measured 2.8×, what the ratio depends on, and the slower session creation.
  const mode = page.locator('fieldset.modes');
  await expect(mode).not.toContainText('about 4×');
  await expect(mode).toContainText('2.8× smaller files on both corpus models');
  await expect(mode).toContainText('PP-OCR det 46 → 61 ms');
  await expect(page.locator('#load-note')).toBeVisible();
  await expect(page.locator('#load-note')).toContainText('PP-OCR det 46 → 61 ms, silero VAD 23 → 32 ms');
  // A separate .data file asked for: det's weights are Constant nodes' values, and the page says why there is none.
  await page.click('#advanced summary');
  await page.selectOption('#external-data', 'external');
  await expect(page.locator('#save-note')).toContainText('one file. No tensor went to external data: the model\'s weights are Constant nodes\' values', { timeout: 60_000 });
  await expect(page.locator('#save-data')).toBeHidden();
  // Shrinking at run time saves no bandwidth; the build-time path does.
  await expect(page.locator('#serve-help')).toContainText('saves no bandwidth');
  await expect(page.locator('#serve-help')).toContainText('Vite, webpack and esbuild plugins');
  // Palette: same raw size, and no load-time note.
  await page.check('input[name=mode][value=palette]');
  await expect(page.locator('#status')).toHaveText('Done.', { timeout: 150_000 });
  await expect(page.locator('[data-saving="raw"]')).toHaveText('same size');
  await expect(page.locator('#load-note')).toBeHidden();
});

// --- 10. keyboard --------------------------------------------------------------------------------

test('one tab stop opens the file chooser, and it shows its focus', async ({ page }) => {
  await page.goto('/');
  await page.keyboard.press('Tab');
  const focused = () => page.evaluate(() => document.activeElement.id);
  expect(await focused()).toBe('drop');
  const outline = await page.evaluate(() => {
    const s = getComputedStyle(document.activeElement);
    return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });
  expect(outline.style).not.toBe('none');
  expect(outline.width).toBeGreaterThan(0);
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('sample');  // not the hidden file input
  await expect(page.locator('#drop')).toHaveAccessibleName(/Choose files/);
});

// --- the result view at 1280 and 390 px ------------------------------------------------------

test('the page names its version and links this version\'s package and README', async ({ page }) => {
  const { name, version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  await page.goto('/');
  await expect(page.locator('#version')).toHaveText(`version ${version}`);
  await expect(page.locator('#package-link')).toHaveAttribute('href', `https://www.npmjs.com/package/${name}/v/${version}`);
  // The README link is served beside the page (no other origin), readable as text, and is this README.
  const readme = await page.locator('#readme-link').evaluate((a) => a.href);
  expect(new URL(readme).origin).toBe(new URL(page.url()).origin);
  const response = await page.request.get(readme);
  expect(response.status()).toBe(200);
  expect(response.headers()['content-type']).toMatch(/^text\/plain/);
  expect(await response.text()).toBe(readFileSync(path.join(root, 'README.md'), 'utf8'));
});

test('the result view at 1280 and 390 px: screenshots kept, chart visible, nothing wider than the window', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await shrinkOnPage(page, det);
  await page.fill('#check-shape-0', '1x3x320x640');
  await page.setInputFiles('#check-file-0', path.join(fixtures, 'det_x.bin'));
  await page.click('#check-run');
  await expect(page.locator('#check-verdict')).toHaveAttribute('data-verdict', 'checked', { timeout: 90_000 });
  // No threshold, no tolerance: checked, in neutral colours, and said to be no pass.
  await expect(page.locator('#check-verdict')).toHaveClass(/\binfo\b/);
  await expect(page.locator('#check-verdict')).toContainText('No threshold was set, so this is no pass or fail');
  const layout = () => page.evaluate(() => {
    const box = (sel) => document.querySelector(sel).getBoundingClientRect();
    const bars = [...document.querySelectorAll('#size-chart .chart-track, #breakdown .chart-track')].map((e) => e.getBoundingClientRect());
    return {
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      chart: { width: box('#size-chart').width, height: box('#size-chart').height },
      barsInside: bars.every((b) => b.left >= 0 && b.right <= window.innerWidth && b.width > 40),
      cue: !document.querySelector('#tensors').closest('.scroll').previousElementSibling.hidden,
      tableScrolls: (() => { const s = document.querySelector('#tensors').closest('.scroll'); return s.scrollWidth > s.clientWidth; })(),
    };
  });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));  // resize observers ran
    await expect(page.locator('#size-chart')).toBeVisible();
    await expect(page.locator('#breakdown')).toBeVisible();
    const l = await layout();
    console.log(`${width} px: ${JSON.stringify(l)}`);
    expect(l.overflow).toBeLessThanOrEqual(0);
    expect(l.chart.height).toBeGreaterThan(100);
    expect(l.barsInside).toBe(true);
    // The tensor table scrolls sideways on a phone, and says so; on a wide window it fits.
    expect(l.cue).toBe(l.tableScrolls);
    expect(l.tableScrolls).toBe(width === 390);
    const file = info.outputPath(`result-${width}.png`);
    await page.locator('#results').screenshot({ path: file });
    await info.attach(`result view at ${width} px`, { path: file, contentType: 'image/png' });
  }
});
