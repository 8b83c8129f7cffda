import { defineConfig } from 'vitest/config';

// The suite Stryker runs against each mutant: the in-process tests only. Tests that spawn the built
// CLI or dist/ would run unmutated code (dist/ is not rebuilt per mutant), so they cannot kill a mutant
// and only slow the run down.
// scripts/mutate.mjs names each module's own test files in ISSUELOOP_MUTATE_TESTS.
const only = process.env.ISSUELOOP_MUTATE_TESTS?.split(',').filter(Boolean);

export default defineConfig({
  test: {
    include: only ?? ['test/**/*.test.ts'],
    exclude: [
      'test/cli/**',
      'test/contract/**',
      'test/package/**',
      'test/layout/**',
      'test/action/action-entry.test.ts',
      'test/claims/multi-process.test.ts',
    ],
    // Contention tests spawn worker processes that load the store from dist/ or by path: unmutated.
    testNamePattern: /^(?!.*across processes)/,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
