// @ts-check
// Mutation testing (`npm run mutate`, not part of CI's gate): the modules where a silent bug is a
// security or data-loss bug. One module: `npm run mutate -- --mutate src/github/pr-watch.ts`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: [
    // Sanitising, trust and the text a model or a maintainer reads.
    'src/github/sanitize.ts',
    'src/github/trust.ts',
    'src/github/neutralise.ts',
    'src/core/rendered-view.ts',
    // Redaction and the forms a secret takes.
    'src/core/redact.ts',
    'src/core/secret-forms.ts',
    // The PR watch and follow-ups.
    'src/github/pr-watch.ts',
    'src/sources/issues/follow-up.ts',
    // The claim stores' rules.
    'src/claims/claims-state.ts',
    'src/claims/lease-limits.ts',
    'src/claims/redis-scripts.ts',
    // The Claude Code stream reader.
    'src/engines/claude-code/stream-events.ts',
    'src/engines/claude-code/live-events.ts',
    // The sandbox's argument and proxy rules, and protected paths.
    'src/sandbox/bwrap-args.ts',
    'src/sandbox/egress-rules.ts',
    'src/sandbox/host-paths.ts',
    'src/config/protected-paths.ts',
    'src/session/protected-paths.ts',
  ],
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
