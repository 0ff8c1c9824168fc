// Playwright drives Debian's Chromium (no browser download: this machine is offline).
import { defineConfig } from '@playwright/test';

const port = 8181;
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
