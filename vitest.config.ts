import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CLI tests spawn the built binary: build it once, before any test file runs.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // One worker process per core (vitest's default leaves one core idle), each running many files
    // in one module graph rather than a fresh process per file. Files must leave no process-wide
    // state behind (nock's interceptors are switched off after test/github/client.test.ts).
    maxWorkers: '100%',
    isolate: false,
    // `--coverage` (CI reports it, nothing gates on it): lines and branches of src/ run in the test
    // process. Code the tests reach only in a spawned CLI or sandbox process is not counted.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.d.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
