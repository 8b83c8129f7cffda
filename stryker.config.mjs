// @ts-check
import { MODULES } from './scripts/mutate-modules.mjs';

// Mutation testing (`npm run mutate`, not part of CI's gate): the modules where a silent bug is a
// security or data-loss bug. One module: `npm run mutate -- pr-watch`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // scripts/mutate.mjs runs one module at a time against its own tests; this list is for a bare
  // `npx stryker run`.
  mutate: Object.keys(MODULES),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true },
  thresholds: { high: 90, low: 85 },
  concurrency: 2,
  timeoutMS: 10_000,
  tempDirName: '.stryker-tmp',
  // TypeScript 7 has no JavaScript API for Stryker's tsconfig rewriting, and this project's tsconfig has
  // no `extends` or references to rewrite: point Stryker at no tsconfig at all.
  tsconfigFile: 'no-tsconfig-rewrite.json',
  ignorePatterns: ['dist', 'action/dist', 'coverage', 'reports', '.ci/out', 'bench'],
};
export default config;
