import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, importsOf, sourceFiles } from '../helpers/import-graph.js';

// Every module under src/ has a test of its own (a test file or test helper imports it), or a line
// below naming the tested module it is exercised through. The claim is checked: that module has a
// direct test and reaches this one by runtime imports. A new module without either fails here.

const ROOT = join(import.meta.dirname, '../..');

/** Folders whose modules are internals of one tested entry point, driven as a client would. */
const FOLDERS_THROUGH: Readonly<Record<string, string>> = {
  // The emulators' routes, stores and serialisers: test/emulators/* drive them over HTTP.
  'src/emulators/github/': 'src/emulators/github/create-emulator.ts',
  'src/emulators/anthropic/': 'src/emulators/anthropic/create-emulator.ts',
};

/** Modules with runtime code and no test of their own, and why none is needed. */
const NO_TEST_NEEDED: Readonly<Record<string, string>> = {
  'src/agent/events.ts': 'types, and a constant list read only for its type',
};

/** Module → the tested module whose tests exercise it (it is one of that module's parts). */
const THROUGH: Readonly<Record<string, string>> = {
  'src/action/action-finish.ts': 'src/action/run-action.ts',
  'src/agent/compaction/clip.ts': 'src/agent/compaction/tool-failures.ts',
  'src/agent/compaction/content-blocks.ts': 'src/agent/compaction/compact.ts',
  'src/agent/loop-compaction.ts': 'src/agent/agent-loop.ts',
  'src/agent/loop-state.ts': 'src/agent/agent-loop.ts',
  'src/agent/model-failure.ts': 'src/agent/agent-loop.ts',
  'src/agent/tools/confined-open.ts': 'src/agent/project-files.ts',
  'src/agent/tools/list-directory.ts': 'src/agent/tools/text-editor.ts',
  'src/agent/tools/text-file.ts': 'src/agent/tools/text-editor.ts',
  'src/claims/redis-connection.ts': 'src/claims/redis-claim-store.ts',
  'src/cli/command-io.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/board.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/demo/demo-outcome.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/demo/demo-pulls.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/demo/demo-repo.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/demo/demo-scenario.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/demo/demo-script.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/demo/index.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/doctor-anthropic.ts': 'src/cli/commands/doctor.ts',
  'src/cli/commands/doctor-host.ts': 'src/cli/commands/doctor.ts',
  'src/cli/commands/doctor-target.ts': 'src/cli/commands/doctor.ts',
  'src/cli/commands/run.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/task-files.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/task-status.ts': 'src/cli/run-cli.ts',
  'src/cli/commands/tasks.ts': 'src/cli/run-cli.ts',
  'src/cli/setup-commands.ts': 'src/cli/run-cli.ts',
  'src/cli/warning-log.ts': 'src/cli/run-cli.ts',
  'src/cli/work-commands.ts': 'src/cli/run-cli.ts',
  'src/config/endpoints.ts': 'src/cli/commands/doctor.ts',
  'src/config/overrides.ts': 'src/action/inputs.ts',
  'src/config/sandbox-schema.ts': 'src/config/schema.ts',
  'src/config/schema-keys.ts': 'src/action/inputs.ts',
  'src/config/zod-problems.ts': 'src/config/load-config.ts',
  'src/core/classify/decisions.ts': 'src/core/classify/classify-error.ts',
  'src/core/classify/error-facts.ts': 'src/core/classify/classify-error.ts',
  'src/core/classify/headers.ts': 'src/core/classify/classify-error.ts',
  'src/core/clock.ts': 'src/cli/commands/doctor.ts',
  'src/core/format-path.ts': 'src/claims/claims-file.ts',
  'src/engines/native/native-engine.ts': 'src/session/run-session.ts',
  'src/engines/native/session-agent.ts': 'src/session/run-session.ts',
  'src/engines/open-engine.ts': 'src/session/run-session.ts',
  'src/github/board/board-state.ts': 'src/github/board/board.ts',
  'src/github/board/documents.ts': 'src/github/board/board-init.ts',
  'src/github/cache-file.ts': 'src/github/board/board.ts',
  'src/github/conditional-get.ts': 'src/github/backlog.ts',
  'src/github/gql.ts': 'src/github/issue-edits.ts',
  'src/github/issues.ts': 'src/github/adapter.ts',
  'src/github/request-metrics.ts': 'src/github/client.ts',
  'src/github/review-pages.ts': 'src/github/review-threads.ts',
  'src/github/text-limits.ts': 'src/github/check-text.ts',
  'src/github/tracking.ts': 'src/github/adapter.ts',
  'src/model/cache-breakpoints.ts': 'src/model/anthropic-model.ts',
  'src/model/model-access.ts': 'src/cli/commands/doctor.ts',
  'src/run/model-preflight.ts': 'src/run/open-run.ts',
  'src/run/open-models.ts': 'src/run/open-run.ts',
  'src/run/otel-telemetry.ts': 'src/run/telemetry-setup.ts',
  'src/run/version.ts': 'src/cli/run-cli.ts',
  'src/sandbox/model-forward.ts': 'src/sandbox/model-proxy.ts',
  'src/sandbox/model-headers.ts': 'src/sandbox/model-proxy.ts',
  'src/sandbox/session-network.ts': 'src/sandbox/sandbox-host.ts',
  'src/scheduler/list-backlog.ts': 'src/scheduler/run-rounds.ts',
  'src/scheduler/pauses.ts': 'src/scheduler/run-rounds.ts',
  'src/scheduler/run-record.ts': 'src/scheduler/run-rounds.ts',
  'src/session/git/git-args.ts': 'src/session/git/branch-tip.ts',
  'src/session/git/git-state.ts': 'src/session/run-session.ts',
  'src/session/git/nested-repos.ts': 'src/session/run-session.ts',
  'src/session/git/spawn-git.ts': 'src/session/git/run-git.ts',
  'src/session/git/staged-diff.ts': 'src/session/run-session.ts',
  'src/session/git/staged-entries.ts': 'src/session/protected-paths.ts',
  'src/session/ledger-fields.ts': 'src/session/run-session.ts',
  'src/session/session-report.ts': 'src/session/run-session.ts',
  'src/session/session-state.ts': 'src/session/run-session.ts',
  'src/session/session-work.ts': 'src/session/run-session.ts',
  'src/session/validate.ts': 'src/session/run-session.ts',
  'src/session/worktree-guard.ts': 'src/session/run-session.ts',
  'src/sources/issues/base-merge.ts': 'src/sources/issues/issue-work.ts',
  'src/sources/issues/history.ts': 'src/sources/issues/issue-source.ts',
  'src/sources/issues/named-issues.ts': 'src/sources/issues/issue-source.ts',
  'src/sources/issues/publish.ts': 'src/sources/issues/issue-work.ts',
};

const srcEdges = importGraph(ROOT, 'src').filter((edge) => !edge.typeOnly);
// test/layout/ is left out: it reads src/ as text, and its fixtures name modules that do not exist.
const testEdges = sourceFiles(ROOT, 'test')
  .filter((file) => !file.startsWith('test/layout/'))
  .flatMap((file) =>
    importsOf(file, readFileSync(join(ROOT, file), 'utf8'), (path) => existsSync(join(ROOT, path))),
  )
  .filter((edge) => !edge.typeOnly);

function runtimeImports(): Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const { from, to } of srcEdges) next.set(from, [...(next.get(from) ?? []), to]);
  return next;
}
const imports = runtimeImports();

/** Modules a test imports, counting what a barrel (index.ts) re-exports as imported too. */
function directlyTested(): Set<string> {
  const tested = new Set<string>();
  const add = (module: string) => {
    if (tested.has(module)) return;
    tested.add(module);
    if (module.endsWith('/index.ts')) for (const to of imports.get(module) ?? []) add(to);
  };
  for (const { to } of testEdges) if (to.startsWith('src/')) add(to);
  return tested;
}
const tested = directlyTested();

function reaches(from: string, target: string): boolean {
  const seen = new Set([from]);
  const queue = [from];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    if (at === target) return true;
    for (const to of imports.get(at) ?? []) if (!seen.has(to) && seen.add(to)) queue.push(to);
  }
  return false;
}

/** A module that declares only types (or re-exports types) has nothing to run. */
function hasRuntimeCode(module: string): boolean {
  const text = readFileSync(join(ROOT, module), 'utf8')
    .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    .replace(/^\s*export\s+type\s+\{[^}]*\}.*$/gm, '');
  return /^\s*export\s+(?:async\s+)?(?:function|const|class|let|default|\{|\*)/m.test(text);
}

const untested = sourceFiles(ROOT, 'src').filter((m) => hasRuntimeCode(m) && !tested.has(m));
const folderOf = (module: string) => Object.keys(FOLDERS_THROUGH).find((f) => module.startsWith(f));

describe('every module under src/ has a direct test or a stated reason', () => {
  it('finds the modules tests import (the check itself sees something)', () => {
    expect(tested.has('src/github/sanitize.ts')).toBe(true);
    expect(tested.size).toBeGreaterThan(150);
    expect(untested).toContain('src/agent/events.ts');
  });

  it('lists every module without a test of its own', () => {
    const unlisted = untested.filter((m) => !(m in THROUGH) && !(m in NO_TEST_NEEDED) && !folderOf(m));
    expect(unlisted, 'add a test for these, or a line in test/layout/direct-tests.test.ts').toEqual([]);
  });

  it('lists no module that has a test of its own now (the line is stale)', () => {
    const stale = [...Object.keys(THROUGH), ...Object.keys(NO_TEST_NEEDED)].filter((m) => tested.has(m));
    expect(stale).toEqual([]);
  });

  it('names, for each listed module, a tested module that reaches it by imports', () => {
    const wrong = untested.flatMap((module) => {
      const through = THROUGH[module] ?? FOLDERS_THROUGH[folderOf(module) ?? ''];
      if (through === undefined) return [];
      return tested.has(through) && reaches(through, module) ? [] : [`${module} ← ${through}`];
    });
    expect(wrong).toEqual([]);
  });
});
