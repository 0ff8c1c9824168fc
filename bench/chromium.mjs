// Shrinks models on the web page in Debian's Chromium (the page's Web Worker does the work) and
// returns the engine's time and peak WebAssembly memory as the page measured them.
import { chromium } from '@playwright/test';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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
    for (const { file, mode } of cases) {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${port}/`);
      await page.check(`input[name=mode][value=${mode}]`);
      await page.setInputFiles('#file', file);
      await page.locator('#status').filter({ hasText: 'Done.' }).waitFor({ timeout: 900_000 });
      const summary = page.locator('#summary');
      results.push({ file, mode, ms: Number(await summary.getAttribute('data-engine-ms')),
                     wasmBytes: Number(await summary.getAttribute('data-wasm-bytes')) });
      await page.close();
    }
  } finally {
    await browser.close();
    server.kill();
  }
  return results;
}
