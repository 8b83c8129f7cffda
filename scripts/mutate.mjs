#!/usr/bin/env node
// Mutation testing of the modules where a silent bug is a security or data-loss bug.
//   npm run mutate                  every module in MODULES, one Stryker run each
//   npm run mutate -- pr-watch      the modules whose path contains "pr-watch"
// Each module is mutated against its own tests only: test/<same path>/<name>*.test.ts plus the files
// listed beside it. A mutant only those tests cannot kill is a bug the suite would let through.
import { globSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Stryker } from '@stryker-mutator/core';

/** module → extra test globs (beyond test/<dir>/<name>*.test.ts). */
const MODULES = {
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

const DETECTED = new Set(['Killed', 'Timeout']);
const VALID = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);

function testsFor(module) {
  const dir = dirname(module).replace(/^src/, 'test');
  const name = basename(module, '.ts');
  const own = globSync(`${dir}/${name}*.test.ts`);
  const extra = MODULES[module].flatMap((g) => globSync(g));
  return [...new Set([...own, ...extra])];
}

async function mutate(module) {
  const tests = testsFor(module);
  if (tests.length === 0) return { module, tests, error: 'no test file' };
  // vitest.mutate.config.ts reads this: the only test files Stryker runs for this module.
  process.env.ISSUELOOP_MUTATE_TESTS = tests.join(',');
  // Stryker reads stryker.config.mjs itself and lays these over it.
  const results = await new Stryker({
    mutate: [module],
    reporters: ['clear-text', 'html'],
    htmlReporter: { fileName: `reports/mutation/${basename(module, '.ts')}.html` },
  }).runMutationTest();
  const valid = results.filter((r) => VALID.has(r.status));
  const detected = valid.filter((r) => DETECTED.has(r.status)).length;
  const survivors = valid.filter((r) => !DETECTED.has(r.status));
  return { module, tests, valid: valid.length, detected, survivors };
}

const filters = process.argv.slice(2);
const chosen = Object.keys(MODULES).filter((m) => filters.length === 0 || filters.some((f) => m.includes(f)));
if (chosen.length === 0) {
  process.stderr.write(
    `mutate: no module matches ${filters.join(' ')}; modules are:\n  ${Object.keys(MODULES).join('\n  ')}\n`,
  );
  process.exit(2);
}
const rows = [];
for (const module of chosen) rows.push(await mutate(module));
process.stdout.write('\nmutation score per module (killed + timed out) / (valid mutants)\n');
for (const r of rows) {
  const score = r.error
    ? r.error
    : `${((100 * r.detected) / Math.max(1, r.valid)).toFixed(1)}%  ${r.detected}/${r.valid}`;
  process.stdout.write(
    `  ${r.module.padEnd(44)} ${score}${r.survivors?.length ? `  (${r.survivors.length} left)` : ''}\n`,
  );
}
