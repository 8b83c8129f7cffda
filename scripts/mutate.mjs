#!/usr/bin/env node
// Mutation testing of the modules where a silent bug is a security or data-loss bug.
//   npm run mutate                  every module in MODULES, one Stryker run each
//   npm run mutate -- pr-watch      the modules whose path contains "pr-watch"
// Each module is mutated against its own tests only: test/<same path>/<name>*.test.ts plus the files
// listed beside it. A mutant only those tests cannot kill is a bug the suite would let through.
import { globSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Stryker } from '@stryker-mutator/core';
import { MODULES } from './mutate-modules.mjs';

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
