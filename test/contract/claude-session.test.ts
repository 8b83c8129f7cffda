import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import type { BacklogIssue } from '../../src/github/issue-shape.js';
import {
  createAnthropicEmulator,
  reply,
  type Script,
  scriptQueue,
} from '../../src/sandbox/anthropic/index.js';
import { openLedger } from '../../src/session/ledger.js';
import { runSession } from '../../src/session/run-session.js';
import { issueWork } from '../../src/sources/issues/issue-work.js';
import { emulated } from '../github/emulated.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import { testSandboxHost } from '../helpers/sandbox.js';
import { GREETING_TYPO, useSessionRepo } from '../session/git/git-fixture.js';
import { CLAUDE_CODE_VERSION, claudeHarness, realClaude } from './real-claude.js';

/**
 * One whole issue session on the real `claude` in issueloop's own sandbox (bubblewrap, its throwaway
 * configuration, the scrubbed environment): the CLI edits the worktree with its own Bash tool, and the
 * harness verifies, commits and opens the draft PR on the GitHub emulator.
 */
const found = realClaude();
const real = 'bin' in found ? found.bin : undefined;
if (!real) {
  console.warn(
    `NOTICE: the Claude Code session contract is skipped: ${'missing' in found ? found.missing : ''}`,
  );
}
const contract = real ? describe : describe.skip;
const TOKEN = 'ghp_realClaudeSession0123456789abcdefghij';
const repo = useSessionRepo(GREETING_TYPO);

/** One issue session: claude on `script`, the native engine (when it takes over) on `native`. */
async function realSession(
  script: Script,
  claudeCode: Record<string, unknown>,
  native: Script = () => reply.text('(the native engine was not expected)'),
) {
  const h = await claudeHarness({ script, retries: 0 });
  const gh = await emulated(repo.stateDir, {
    config: {
      verify: { command: 'grep -q "\'hello\'" greet.js' },
      engine: 'claude-code',
      claude_code: { bin: real, model: 'claude-sonnet-5-5', ...claudeCode },
    },
  });
  const number = gh.emulator.addIssue({
    title: 'Greeting typo',
    body: 'greet() says helo',
    author: 'octocat',
    authorAssociation: 'MEMBER',
    labels: ['issueloop'],
  });
  const clock = new FakeClock();
  const redact = createRedactor([TOKEN]);
  const deps = { clock, random: createSeededRandom(3), log: createMemoryLog() };
  const ledger = await openLedger({ stateDir: repo.stateDir, runId: 'real', clock, redact });
  const report = await runSession({
    work: issueWork((await gh.adapter.issues.get(number)) as BacklogIssue, {
      github: gh.adapter,
      checkout: repo.fx.checkout,
      remote: 'origin',
      baseBranch: 'main',
      config: gh.config,
      redact,
    }),
    attempt: 1,
    checkout: repo.fx.checkout,
    worktreesDir: join(repo.stateDir, 'worktrees'),
    repo: 'octo-org/widgets',
    config: gh.config,
    models: emulatedModels(createAnthropicEmulator({ script: native }), deps, redact),
    env: { ...repo.fx.env, ...h.env, GITHUB_TOKEN: TOKEN },
    sandbox: await testSandboxHost(),
    redact,
    deps,
    ledger,
    signal: new AbortController().signal,
  });
  await ledger.flush();
  return { report, gh };
}

contract(
  `an issue session on the real claude ${CLAUDE_CODE_VERSION}, in the sandbox (contract)`,
  { timeout: 120_000 },
  () => {
    it('edits, verifies, commits and opens the PR; counts its calls and cost; never sees the GitHub token', async () => {
      let toolAnswer = '';
      const { report, gh } = await realSession(
        scriptQueue([
          () =>
            reply.toolUse([
              {
                name: 'Bash',
                input: {
                  command: `sed -i "s/'helo'/'hello'/" greet.js && env | grep -c GITHUB_TOKEN || true`,
                  description: 'fix the typo',
                },
              },
            ]),
          (request) => {
            const result = request.messages
              .flatMap((m) => m.content)
              .find((block) => block.type === 'tool_result');
            toolAnswer = JSON.stringify(result?.content);
            return reply.text('Fixed.');
          },
        ]),
        { fallback: 'none' },
      );
      expect(report).toMatchObject({
        outcome: 'resolved',
        filesChanged: ['greet.js'],
        modelCalls: 2,
        toolCalls: 1,
      });
      expect(report.costUsd).toBeGreaterThan(0);
      expect(report.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(gh.emulator.pulls()).toHaveLength(1);
      // The Bash tool ran inside claude, inside the sandbox: `grep -c` counted no GITHUB_TOKEN there.
      expect(toolAnswer).toBe('"0"');
    });

    it("a billing refusal hands over to the native engine, seeded from the real CLI's session file", async () => {
      const seen: string[] = [];
      const { report } = await realSession(
        () =>
          reply.error(402, 'billing_error', 'Your credit balance is too low to access the Anthropic API.'),
        { fallback: 'native' },
        (request) => {
          seen.push(JSON.stringify(request.messages[0]?.content));
          if (request.messages.length > 1) return reply.text('Fixed.');
          return reply.toolUse([
            {
              name: 'str_replace_based_edit_tool',
              input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
            },
          ]);
        },
      );
      expect(report.outcome).toBe('resolved');
      // The prelude is the CLI's own record of the attempt: the task it was given, not its error message.
      expect(seen[0]).toContain('Prior session context (from claude-code):');
      expect(seen[0]).toContain('user: Issue #');
      expect(seen[0]).not.toContain('Credit balance');
      expect(seen[0]).toContain(
        'RETRY AFTER FAILURE: the previous attempt on claude-code stopped (billing).',
      );
    });
  },
);
