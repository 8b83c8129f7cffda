// The modules `npm run mutate` mutates: where a silent bug is a security or data-loss bug. Each is
// mutated against test/<same folder>/<name>*.test.ts plus the globs beside it (scripts/mutate.mjs).
/** module → extra test globs (beyond test/<dir>/<name>*.test.ts). */
export const MODULES = {
  // test/github/hostile-sizes.test.ts is left out: instrumented, its sizes run past any timeout.
  'src/github/sanitize.ts': [],
  'src/github/trust.ts': [],
  // inertImages is tested where the PR body uses it; the shared decoder beside the rendered view.
  'src/github/neutralise.ts': ['test/github/pr-body-images.test.ts', 'test/core/rendered-view.test.ts'],
  // The view's mapping is tested with the percent-encoding redaction and the two Markdown readings.
  'src/core/rendered-view.ts': ['test/core/redact-percent.test.ts', 'test/core/markdown-views.test.ts'],
  // createRedactor's forms (split, base64, ...) are tested in secret-forms.test.ts.
  'src/core/redact.ts': [
    'test/core/secret-forms.test.ts',
    'test/core/markdown-views.test.ts',
    'test/core/rendered-view.test.ts',
  ],
  // The forms are what the redactor and the diff scan look for: their tests are the forms' tests.
  'src/core/secret-forms.ts': [
    'test/core/redact*.test.ts',
    'test/core/rendered-view.test.ts',
    'test/session/secret-scan*.test.ts',
  ],
  'src/github/pr-watch.ts': [],
  // Where the PR watch's verdict is made (failing conclusions, the newest status per context).
  'src/github/check-summary.ts': [
    'test/github/pr-watch-checks.test.ts',
    'test/sources/issues/pull-decide.test.ts',
  ],
  'src/sources/issues/follow-up.ts': ['test/sources/issues/answer-threads.test.ts'],
  // The rules run inside every store; the memory store runs the whole contract on them in-process.
  'src/claims/claims-state.ts': [
    'test/claims/memory-claim-store.test.ts',
    'test/claims/failure-text.test.ts',
  ],
  'src/claims/lease-limits.ts': [],
  'src/claims/redis-scripts.ts': ['test/claims/redis-claim-store.test.ts'],
  'src/engines/claude-code/stream-events.ts': [],
  'src/engines/claude-code/live-events.ts': [],
  'src/sandbox/bwrap-args.ts': [],
  'src/sandbox/egress-rules.ts': [],
  'src/sandbox/host-paths.ts': [
    'test/sandbox/bwrap-args.test.ts',
    'test/sandbox/path-secrets.test.ts',
    'test/sandbox/path-config-red2-attack.test.ts',
  ],
  'src/config/protected-paths.ts': ['test/core/path-glob.test.ts'],
  'src/session/protected-paths.ts': ['test/session/protected-changes.test.ts'],
};
