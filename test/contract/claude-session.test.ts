import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { reply, type Script, scriptQueue } from '../../src/emulators/anthropic/index.js';
import { costOf, priceOf } from '../../src/model/prices.js';
import { claudeCodeIssueSession } from '../engines/claude-code/claude-code-issue.js';
import { GREETING_TYPO, useSessionRepo } from '../session/git/git-fixture.js';
import { CLAUDE_CODE_VERSION, claudeHarness, contractSuite } from './real-claude.js';

/**
 * One whole issue session on the real `claude` in issueloop's own sandbox (bubblewrap, its throwaway
 * configuration, the scrubbed environment): the CLI edits the worktree with its own Bash tool, and the
 * harness verifies, commits and opens the draft PR on the GitHub emulator.
 */
const { real, contract } = contractSuite('the Claude Code session contract');
const repo = useSessionRepo(GREETING_TYPO);

/** One issue session: claude on `script`, the native engine (when it takes over) on `native`. */
async function realSession(
  script: Script,
  claudeCode: Record<string, unknown>,
  native: Script = () => reply.text('(the native engine was not expected)'),
  config: Record<string, unknown> = {},
) {
  const h = await claudeHarness({ script, retries: 0 });
  // Your own settings may reroute the API or log in (a settings `env` wins over the process's): the
  // session's claude works from the scrubbed copy, through its proxy, all the same.
  await mkdir(join(h.home, '.claude'), { recursive: true });
  await writeFile(
    join(h.home, '.claude', 'settings.json'),
    JSON.stringify({
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk-ant-api03-from-settings' },
    }),
  );
  const session = await claudeCodeIssueSession({
    repo,
    bin: real as string,
    claudeCode: { model: 'claude-sonnet-5-5', ...claudeCode },
    // What the harness holds: the session opens its own model proxy with it.
    env: h.hostEnv,
    native,
    config,
  });
  return { ...session, h };
}

contract(
  `an issue session on the real claude ${CLAUDE_CODE_VERSION}, through its model proxy (contract)`,
  { timeout: 120_000 },
  () => {
    it('edits, verifies, commits and opens the PR; counts its calls and cost; never sees the GitHub token', async () => {
      let toolAnswer = '';
      const { report, gh, h } = await realSession(
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
      // The session's cost is what the API served through its proxy, at issueloop's prices.
      const served = h.emulator.cacheStats();
      const expected = costOf(served, priceOf('claude-sonnet-5-5'));
      console.log(
        `contract figures: session recorded $${report.costUsd.toFixed(6)}; the emulator served ${served.requests} responses = $${expected.toFixed(6)}`,
      );
      expect(report.costUsd).toBeGreaterThan(0);
      expect(Math.abs(report.costUsd - expected)).toBeLessThanOrEqual(0.01 * expected);
      expect(report.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(gh.emulator.pulls()).toHaveLength(1);
      // The Bash tool ran inside claude, inside the sandbox: `grep -c` counted no GITHUB_TOKEN there.
      expect(toolAnswer).toBe('"0"');
    });

    it("regression: the session's budget holds at issueloop's prices, where the CLI's own count would let it spend on", async () => {
      // The CLI prices this model far below the table here: by its count a call costs cents of the
      // dollar it was given, by issueloop's it is past it after the first response.
      const { report, h } = await realSession(
        () => reply.toolUse([{ name: 'Bash', input: { command: 'true', description: 'nothing' } }]),
        { fallback: 'none' },
        undefined,
        {
          session: { max_usd: 1 },
          model: { prices: { 'claude-sonnet-5-5': { input: 300, output: 1500 } } },
        },
      );
      const served = h.emulator.cacheStats();
      console.log(
        `contract figures: budget $1, the session recorded $${report.costUsd.toFixed(4)} after ${served.requests} response(s); the proxy answered the next call itself`,
      );
      expect(report.outcome).toBe('budget_exceeded');
      expect(served.requests).toBe(1);
      expect(report.costUsd).toBeGreaterThan(1);
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
