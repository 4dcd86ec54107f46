import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'shared/**/*.test.ts',
      'main/**/*.test.ts',
      'renderer/**/*.test.ts',
      'preload/**/*.test.ts',
      'test/**/*.test.ts',
      'test-support/**/*.test.ts',
      'bench/**/*.test.ts',
    ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What a poll waits for (a shell's reply, a watcher's event) can take seconds on a loaded machine, as in Playwright.
    expect: { poll: { timeout: 10_000 } },
    // Jupyter servers and file watchers are real; keep parallelism modest on 2 cores.
    maxWorkers: 2,
  },
});
