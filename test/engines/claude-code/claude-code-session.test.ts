import { describe, expect, it } from 'vitest';
import { type ParsedMessagesRequest, reply } from '../../../src/emulators/anthropic/index.js';
import { readLedger } from '../../../src/session/ledger.js';
import { GREETING_TYPO, useSessionRepo } from '../../session/git/git-fixture.js';
import { claudeCodeIssueSession, SESSION_TOKEN } from './claude-code-issue.js';
import { FAKE_CLAUDE, fakeClaude, recordedResult, resultJson } from './fake-claude.js';

const _TOKEN = SESSION_TOKEN;
const repo = useSessionRepo(GREETING_TYPO);

const FIXED = "export const greet = () => 'hello';\n";

/** One session on the Claude Code engine (a fake `claude`), with the native engine on the scripted server. */
async function session(
  scenario: unknown[],
  claudeCode: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  native: {
    /** What the native engine's model answers instead of the edit. */
    answer?: () => ReturnType<typeof reply.text>;
    /** More of the caller's environment (a model credential). */
    env?: Record<string, string>;
    /** The native engine's model runtime, from the real one (to fail or interrupt its start). */
    models?: Parameters<typeof claudeCodeIssueSession>[0]['models'];
  } = {},
) {
  const fake = await fakeClaude(scenario);
  const nativeRequests: ParsedMessagesRequest[] = [];
  const ran = await claudeCodeIssueSession({
    repo,
    bin: FAKE_CLAUDE,
    claudeCode,
    config: extra,
    env: { ...fake.env, ...native.env },
    native: (request) => {
      nativeRequests.push(request);
      if (native.answer) return native.answer();
      if (request.messages.length > 1) return reply.text('Wired it up.');
      return reply.toolUse([
        {
          name: 'str_replace_based_edit_tool',
          input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
        },
      ]);
    },
    ...(native.models ? { models: native.models } : {}),
  });
  return { ...ran, fake, nativeRequests };
}

describe('a session on the Claude Code engine', () => {
  it('claude edits the worktree; the harness verifies, commits and opens the PR as for the native engine', async () => {
    const { report, fake, gh, nativeRequests } = await session([
      { stdout: resultJson({ result: 'Fixed the typo.' }), write: { file: 'greet.js', content: FIXED } },
    ]);
    expect(report).toMatchObject({
      outcome: 'resolved',
      filesChanged: ['greet.js'],
      model: 'claude-code:sonnet',
    });
    expect(report.costUsd).toBeCloseTo(0.0421);
    expect(gh.emulator.pulls()).toHaveLength(1);
    expect(nativeRequests).toHaveLength(0);
    const [call] = await fake.calls();
    expect(call?.prompt).toMatch(/^Issue #\d+: Greeting typo\n/);
    expect(call?.cwd).toMatch(/worktrees\/issue-\d+$/);
    expect(call?.env).not.toContain('GITHUB_TOKEN');
    // No credential held, so no model proxy: still none of the CLI's non-essential traffic.
    expect(call?.env).toEqual(
      expect.arrayContaining(['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'DISABLE_TELEMETRY']),
    );
    expect(call?.env).not.toContain('ANTHROPIC_BASE_URL');
    // Headless Claude Code cannot ask for permission: edits and the usual tools are granted up front.
    // Within the session's model calls and money, in a session whose id is chosen up front.
    expect(call?.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      'sonnet',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash,Read,Edit,Write,Glob,Grep',
      '--max-turns',
      String(gh.config.session.max_model_calls),
      '--max-budget-usd',
      gh.config.session.max_usd.toFixed(4),
      '--session-id',
      expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    ]);
  });

  it("regression: a Claude Code session's model calls, tool calls and cost reach the report and the live events (the stream the real CLI printed)", async () => {
    const recorded = recordedResult('stream-tool-call.jsonl');
    const { report, ledger } = await session([
      { fixture: 'stream-tool-call.jsonl', write: { file: 'greet.js', content: FIXED } },
    ]);
    expect(report).toMatchObject({ outcome: 'resolved', modelCalls: 2, toolCalls: 1 });
    expect(report.costUsd).toBeCloseTo(Number(recorded.total_cost_usd), 9);
    // The live line and the ledger add up the model_call events: they come to what the session cost.
    const { events } = await readLedger(ledger.file);
    const calls = events.filter((e) => e.type === 'model_call') as unknown as { costUsd: number }[];
    expect(calls).toHaveLength(2);
    expect(calls.reduce((sum, e) => sum + e.costUsd, 0)).toBeCloseTo(report.costUsd, 9);
  });

  it('regression: a 2.1.x billing failure after /compact seeds the native engine with the compaction summary, not "Conversation compacted"', async () => {
    // The session file is written under the id issueloop gave the call, as the real CLI does.
    const { report, nativeRequests } = await session([
      { fixture: 'result-402.json', exit: 1, session: { fixture: 'session-compacted.jsonl' } },
    ]);
    expect(report.outcome).toBe('resolved');
    const text = JSON.stringify(nativeRequests[0]?.messages[0]?.content);
    expect(text).toContain('This session is being continued from a previous conversation');
    expect(text).toContain('third task: rename greet');
    expect(text).not.toContain('Conversation compacted');
    expect(text).not.toContain('local-command');
  });

  it('regression: --max-turns reached (recorded) ends the session as over budget, not as a model failure to retry', async () => {
    const { report, nativeRequests } = await session([{ fixture: 'result-max-turns.json', exit: 1 }]);
    expect(report.outcome).toBe('budget_exceeded');
    expect(nativeRequests).toHaveLength(0);
  });

  it('a billing failure hands over to the native engine, seeded with the Claude Code session (seed 003)', async () => {
    const sessionId = '0b7a1e52-9c3d-4f6e-8a1b-2c3d4e5f6a7b';
    const { report, nativeRequests, ledger } = await session([
      {
        stdout: resultJson({ is_error: true, session_id: sessionId, result: 'Credit balance is too low' }),
        exit: 1,
        session: {
          id: sessionId,
          lines: [
            { type: 'summary', summary: 'Found the typo in greet.js line 1.' },
            { type: 'system', subtype: 'compact_boundary' },
            { type: 'user', message: { role: 'user', content: 'now fix it' } },
          ],
        },
      },
    ]);
    expect(report.outcome).toBe('resolved');
    const first = nativeRequests[0]?.messages[0];
    const text = JSON.stringify(first?.content);
    expect(text).toContain('Prior session context (from claude-code):');
    expect(text).toContain('Found the typo in greet.js line 1.');
    expect(text).toContain('user: now fix it');
    expect(text).toContain('RETRY AFTER FAILURE: the previous attempt on claude-code stopped (billing).');
    expect(text).toMatch(/Issue #\d+: Greeting typo/);
    const { events } = await readLedger(ledger.file);
    expect(events.find((e) => e.type === 'engine_fallback')).toMatchObject({
      from: 'claude-code',
      to: 'native',
      errorClass: 'billing',
    });
    expect(report.costUsd).toBeGreaterThan(0.0421);
  });

  it('regression: after the hand-over the native engine gets what is left of the budget, not a fresh one', async () => {
    const { report, nativeRequests } = await session(
      [
        {
          stdout: resultJson({ is_error: true, result: 'Credit balance is too low', total_cost_usd: 0.0499 }),
          exit: 1,
        },
      ],
      {},
      { session: { max_usd: 0.05 } },
    );
    expect(nativeRequests.length).toBeGreaterThanOrEqual(1);
    expect(report.outcome).toBe('budget_exceeded');
  });

  it('regression: a hand-over whose native engine never answers reports Claude Code as the model, not the primary', async () => {
    const { report, nativeRequests } = await session(
      [{ stdout: resultJson({ is_error: true, result: 'Credit balance is too low' }), exit: 1 }],
      {},
      {},
      { answer: () => reply.error(400, 'invalid_request_error', 'bad request') },
    );
    expect(nativeRequests.length).toBeGreaterThanOrEqual(1);
    expect(report.outcome).toBe('error:invalid_request');
    expect(report.model).toBe('claude-code:sonnet');
  });

  it("regression: an interrupt while the native engine starts keeps Claude Code's spend (counted once), transcript and model", async () => {
    const { report } = await session(
      [{ stdout: resultJson({ is_error: true, result: 'Credit balance is too low' }), exit: 1 }],
      {},
      {},
      {
        models: (real, controller) => ({
          ...real,
          forIssue: async () => {
            controller.abort(new Error('interrupted'));
            throw new Error('aborted');
          },
        }),
      },
    );
    expect(report.outcome).toBe('interrupted');
    expect(report.costUsd).toBeCloseTo(0.0421);
    expect(report.modelCalls).toBe(1);
    expect(report.model).toBe('claude-code:sonnet');
    expect(report.partialContext).toContain('Credit balance is too low');
  });

  it('regression: headless claude logs in with a placeholder in the variable the credential came in, behind the model proxy; still no GitHub token', async () => {
    for (const name of ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN']) {
      const { fake, report } = await session(
        [{ stdout: resultJson({ result: 'Fixed the typo.' }), write: { file: 'greet.js', content: FIXED } }],
        {},
        {},
        { env: { [name]: `credential-for-${name}` } },
      );
      expect(report.outcome).toBe('resolved');
      const [call] = await fake.calls();
      expect(call?.env).toContain(name);
      expect(call?.env).toContain('ANTHROPIC_BASE_URL');
      expect(call?.env).toContain('CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC');
      expect(call?.env).not.toContain('GITHUB_TOKEN');
      expect(report.reason + report.partialContext).not.toContain(`credential-for-${name}`);
    }
  });

  it('with claude_code.fallback: none the failure is the outcome, and the native engine is never called', async () => {
    const { report, nativeRequests } = await session(
      [{ stdout: resultJson({ is_error: true, result: 'API Error: 429 Too Many Requests' }), exit: 1 }],
      { fallback: 'none' },
    );
    expect(report.outcome).toBe('error:rate_limit');
    expect(nativeRequests).toHaveLength(0);
  });
});
