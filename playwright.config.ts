import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/support/chromium';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // Each test starts its own web host on a fresh workspace; two at a time fits two cores.
  workers: 2,
  // One more try for a test that fails once: a shared 2-core machine can starve a browser for seconds. The list
  // reporter still names such a test "flaky", and a test that fails twice fails the run.
  retries: 1,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    viewport: { width: 1400, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
