// Playwright drives Debian's Chromium (no browser download: this machine is offline).
import { defineConfig } from '@playwright/test';

// E2E_PORT: another port when 8181 is taken (a page served for use, or a second run beside this one).
const port = Number(process.env.E2E_PORT) || 8181;
export default defineConfig({
  testDir: '.',
  timeout: 180_000,
  workers: 1,
  outputDir: '../test-results',
  reporter: [['list']],
  use: {
    baseURL: `http://localhost:${port}`,
    acceptDownloads: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
             '--no-first-run', '--disable-gpu', '--disable-quic'],
    },
  },
  webServer: {
    command: `node tools/serve.mjs build-web ${port}`,
    cwd: '..',
    port,
    reuseExistingServer: false,
  },
});
