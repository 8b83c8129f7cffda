import { join } from 'node:path';
import { createMemoryClaimStore } from '../../src/claims/memory-claim-store.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import {
  createAnthropicEmulator,
  type ParsedMessagesRequest,
  reply,
  type ScriptedReply,
} from '../../src/emulators/anthropic/index.js';
import { createGitHubEmulator, type GitHubEmulator } from '../../src/emulators/github/index.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import type { WorkContext } from '../../src/scheduler/work-item.js';
import { openLedger } from '../../src/session/ledger.js';
import { createIssueSource } from '../../src/sources/issues/issue-source.js';
import { BASE, emulated } from '../github/emulated.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { testSandboxHost } from '../helpers/sandbox.js';
import { GREETING_TYPO, useSessionRepo } from '../session/git/git-fixture.js';

/** greet.js once a conflict between the PR's fix and main's new line is resolved. */
export const RESOLVED_GREETING = "export const greet = () => 'hello';\nexport const wave = () => 'bye';\n";

/**
 * The scripted agent: fixes the typo for issues titled "typo", adds a test file in a follow-up of a PR
 * whose checks failed, does nothing for anything else.
 */
export function agentScript(request: ParsedMessagesRequest): ScriptedReply {
  const first = JSON.stringify(request.messages[0]?.content ?? '');
  if (request.messages.length > 1) return reply.text('Done.');
  // Steered into adding a workflow (by the issue's body, or a failing check's output): issue 29 item 5.
  if (first.includes('add-a-workflow')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: '.github/workflows/exfil.yml', file_text: 'on: push\n' },
      },
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
      },
    ]);
  }
  // A follow-up of a PR whose base moved: a conflict in greet.js, resolved keeping both sides.
  if (first.includes('the merge stopped on conflicts') && !first.includes('leave the markers')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'greet.js', file_text: RESOLVED_GREETING },
      },
    ]);
  }
  // The base merged cleanly but broke the verify command (`grep -q ok STATUS`).
  if (first.includes('without a conflict, but the verify command fails')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'STATUS', file_text: 'ok\n' },
      },
    ]);
  }
  // A follow-up of a PR whose checks failed: the failing test wanted a test file.
  if (first.includes('FOLLOW-UP')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'create', path: 'greet.test.js', file_text: "assert(greet() === 'hello');\n" },
      },
    ]);
  }
  if (first.includes('typo')) {
    return reply.toolUse([
      {
        name: 'str_replace_based_edit_tool',
        input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
      },
    ]);
  }
  return reply.text('Nothing to change here.');
}

/**
 * Whole issue runs in one process for the scheduler's tests: a real checkout with a greeting typo on
 * a bare origin, the GitHub emulator, the scripted agent, a memory claim store and a ledger. Call it
 * at the top of a test file: it registers the repository's hooks.
 */
export function roundsFixture() {
  const repo = useSessionRepo(GREETING_TYPO);

  async function setup(
    config: Record<string, unknown> = {},
    emulator?: GitHubEmulator,
    clock = new FakeClock(),
  ) {
    const gh = await emulated(repo.stateDir, {
      config: { verify: { command: 'grep -q "\'hello\'" greet.js' }, empty_rounds: 2, ...config },
      ...(emulator ? { emulator } : {}),
    });
    const anthropic = createAnthropicEmulator({ script: agentScript });
    const log = createMemoryLog();
    const redact = createRedactor([]);
    const deps = { clock, random: createSeededRandom(4), log };
    const claims = createMemoryClaimStore({ clock, maxFailures: gh.config.claims.max_failures });
    const ledger = await openLedger({ stateDir: repo.stateDir, runId: 'r', clock, redact });
    /** A run's view of GitHub; a new runner has its own (nothing read yet). */
    const newSource = () =>
      createIssueSource({
        github: gh.adapter,
        config: gh.config,
        redact,
        checkout: repo.fx.checkout,
        remote: 'origin',
        baseBranch: 'main',
        log,
        clock,
      });
    const ctx: WorkContext = {
      config: gh.config,
      source: newSource(),
      claims,
      deps,
      ledger,
      signal: new AbortController().signal,
      checkout: repo.fx.checkout,
      worktreesDir: join(repo.stateDir, 'worktrees'),
      repo: 'octo-org/widgets',
      models: emulatedModels(anthropic, deps, redact),
      env: repo.fx.env,
      redact,
      sandbox: await testSandboxHost(),
    };
    /** The same models, with each request first passed through `gate` (to hold a session's model call). */
    const gatedModels = (gate: (body: string) => Promise<void>) =>
      emulatedModels(
        {
          ...anthropic,
          fetch: async (input, init) => {
            await gate(String(init?.body ?? ''));
            return anthropic.fetch(input, init);
          },
        },
        deps,
        redact,
      );
    /** The same models, answered by `answer` instead when it returns a response (a revoked key). */
    const answeredModels = (answer: () => Response | Error | undefined) =>
      emulatedModels(
        {
          ...anthropic,
          fetch: async (input, init) => {
            const answered = answer();
            if (answered instanceof Error) throw answered;
            return answered ?? anthropic.fetch(input, init);
          },
        },
        deps,
        redact,
      );
    return { gh, ctx, claims, ledger, clock, log, newSource, gatedModels, answeredModels };
  }

  /**
   * A resolved issue (its draft PR open) on an emulator that reads the real branches of the fixture's
   * origin, with `failCheck` to fail a check on the PR's head. `body` is the issue's.
   */
  async function resolvedWithRealRefs(config: Record<string, unknown> = {}, body = 'please') {
    const emulator = createGitHubEmulator({ baseUrl: BASE, origin: repo.fx.origin });
    const fixture = await setup(watched(config), emulator);
    const issue = emulator.addIssue({ ...member('Fix the greeting typo'), body });
    await runRounds(fixture.ctx, { owner: 'host:1' });
    const pr = emulator.pulls().find((p) => p.head.ref === `issueloop/issue-${issue}`);
    if (!pr) throw new Error('setup: no pull request');
    const branch = `issueloop/issue-${issue}`;
    const failCheck = () =>
      emulator.addCheckRun({
        ref: branch,
        name: 'test',
        status: 'completed',
        conclusion: 'failure',
        output: { title: '1 test failed', summary: 'no test covers greet()' },
        annotations: [
          {
            path: 'greet.js',
            start_line: 1,
            end_line: 1,
            annotation_level: 'failure',
            message: 'greet() is untested',
          },
        ],
        log: '2026-11-25T10:00:00.0000000Z > npm test\n2026-11-25T10:00:01.0000000Z Error: no test file for greet.js\n',
      });
    return { ...fixture, emulator, issue, pr, branch, failCheck };
  }

  /** Commits `files` on origin's main, as a maintainer merging other work would; returns the new tip. */
  function moveMain(files: Record<string, string>, message: string): string {
    const { seed } = repo.fx;
    repo.fx.git(seed, 'fetch', '--quiet', 'origin');
    repo.fx.git(seed, 'checkout', '--quiet', '-B', 'main', 'origin/main');
    const sha = repo.fx.commitFiles(seed, files, message);
    repo.fx.git(seed, 'push', '--quiet', 'origin', 'HEAD:main');
    return sha;
  }

  return { repo, setup, resolvedWithRealRefs, moveMain };
}

/**
 * The run's config for the pull request tests: one empty round ends a run, and every round looks at
 * the PRs (`pr.watch_interval: 0s`; the clock here does not move between runs).
 */
export function watched(config: { pr?: Record<string, unknown> } & Record<string, unknown> = {}) {
  return { empty_rounds: 1, ...config, pr: { watch_interval: '0s', ...config.pr } };
}

/** A fake clock that moves only when a test advances it. */
export const manualClock = () => new FakeClock(Date.UTC(2026, 10, 21, 12, 0, 0), false);

export { until } from '../helpers/until.js';

export const member = (title: string) => ({
  title,
  body: 'please',
  author: 'octocat',
  authorAssociation: 'MEMBER' as const,
  labels: ['issueloop'],
});
