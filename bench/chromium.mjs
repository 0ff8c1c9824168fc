// Shrinks models on the web page in Debian's Chromium (the page's Web Worker does the work) and
// returns the engine's time and peak WebAssembly memory as the page measured them. A case is
// { files: [model, ...its external data], mode, saveTo? }; saveTo keeps the page's saved result.
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const WARM_PAUSE_MS = Number(process.env.WARM_PAUSE_MS ?? 1000);

export async function shrinkInChromium(cases, port = 8191) {
  const server = spawn(process.execPath, [path.join(root, 'tools', 'serve.mjs'), path.join(root, 'build-web'), String(port)],
                       { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => server.stdout.once('data', resolve));
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--no-first-run'],
  });
  const results = [];
  try {
    for (const { files, mode, saveTo } of cases) {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${port}/`);
      // The page warms its engine worker while the user picks a file (web/warm_up.js); a user takes
      // seconds to, so the file is dropped once it is warm, and after a second's pause (V8 optimizes
      // the warm-up's hot code in the background).
      await page.waitForFunction(() => document.body.dataset.engineWarm === 'yes', null, { timeout: 60_000 });
      await page.waitForTimeout(WARM_PAUSE_MS);
      await page.check(`input[name=mode][value=${mode}]`);
      await page.setInputFiles('#file', files);
      // The result is ready (and can be saved) before the compressed sizes are measured.
      await page.waitForFunction(() => document.querySelector('#summary').dataset.engineMs || !document.querySelector('#error').hidden,
                                 null, { timeout: 1_800_000, polling: 500 });
      if (await page.locator('#error').isVisible()) throw new Error(`the page failed on ${files[0]}: ${await page.locator('#error').textContent()}`);
      const summary = page.locator('#summary');
      const result = { file: files[0], mode, ms: Number(await summary.getAttribute('data-engine-ms')),
                       warmed: (await summary.getAttribute('data-engine-warmed')) === 'true',
                       wasmBytes: Number(await summary.getAttribute('data-wasm-bytes')) };
      if (saveTo) {
        const [download] = await Promise.all([page.waitForEvent('download', { timeout: 600_000 }), page.click('#save')]);
        await download.saveAs(saveTo);
        result.saved = saveTo;
      }
      results.push(result);
      await page.close();
    }
  } finally {
    await browser.close();
    server.kill();
  }
  return results;
}
