import { join } from 'node:path';
import { createMemoryClaimStore } from '../../src/claims/memory-claim-store.js';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import {
  createAnthropicEmulator,
  type ParsedMessagesRequest,
  reply,
  type ScriptedReply,
} from '../../src/sandbox/anthropic/index.js';
import type { GitHubEmulator } from '../../src/sandbox/github/index.js';
import type { WorkContext } from '../../src/scheduler/work-item.js';
import { openLedger } from '../../src/session/ledger.js';
import { createIssueSource } from '../../src/sources/issues/issue-source.js';
import { emulated } from '../github/emulated.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { testSandboxHost } from '../helpers/sandbox.js';
import { GREETING_TYPO, useSessionRepo } from '../session/git/git-fixture.js';

/**
 * The scripted agent: fixes the typo for issues titled "typo", adds a test file in a follow-up of a PR
 * whose checks failed, does nothing for anything else.
 */
export function agentScript(request: ParsedMessagesRequest): ScriptedReply {
  const first = JSON.stringify(request.messages[0]?.content ?? '');
  if (request.messages.length > 1) return reply.text('Done.');
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

  return { repo, setup };
}

/** A fake clock that moves only when a test advances it. */
export const manualClock = () => new FakeClock(Date.UTC(2026, 10, 21, 12, 0, 0), false);

/** Resolves when `check` holds, polling every few ms, or rejects after `ms`. */
export async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const member = (title: string) => ({
  title,
  body: 'please',
  author: 'octocat',
  authorAssociation: 'MEMBER' as const,
  labels: ['issueloop'],
});
