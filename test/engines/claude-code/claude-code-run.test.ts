import { describe, expect, it } from 'vitest';
import { callTimeoutMs } from '../../../src/engines/claude-code/claude-code-engine.js';
import { claudeArgs, runClaudeCode } from '../../../src/engines/claude-code/claude-code-run.js';
import { MIN_FALLBACK_MS } from '../../../src/engines/fallback/fallback-engine.js';
import { FAKE_CLAUDE, fakeClaude, recordedResult, resultJson } from './fake-claude.js';

const run = (
  fake: Awaited<ReturnType<typeof fakeClaude>>,
  extra: Partial<Parameters<typeof runClaudeCode>[0]> = {},
) =>
  runClaudeCode({
    bin: FAKE_CLAUDE,
    cwd: fake.dir,
    model: 'sonnet',
    prompt: 'Fix the greeting typo',
    env: fake.env,
    timeoutMs: 20_000,
    ...extra,
  });

describe('runClaudeCode against a fake claude on the same command line', () => {
  it('success: the prompt on stdin, the stream flags, session id, usage, context window and cost read', async () => {
    const fake = await fakeClaude([{ stdout: resultJson() }]);
    const result = await run(fake, { session: { id: 'a1', resume: false } });
    expect(result).toEqual({
      ok: true,
      text: 'Fixed the typo in greet.js.',
      sessionId: 'a1',
      usage: { input: 1200, cacheWrite: 3000, cacheRead: 9000, output: 800 },
      contextTokens: 14_000,
      contextWindow: 200_000,
      costUsd: 0.0421,
      sessionCostUsd: 0.0421,
      modelCalls: 1,
      toolCalls: 0,
      toolErrors: 0,
      exitCode: 0,
    });
    const [call] = await fake.calls();
    expect(call?.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      'sonnet',
      '--session-id',
      'a1',
    ]);
    expect(call?.prompt).toBe('Fix the greeting typo');
  });

  it('resumes a session with --resume; the limits go to --max-turns and --max-budget-usd', async () => {
    const fake = await fakeClaude([{ stdout: resultJson() }]);
    await run(fake, { session: { id: 'abc-123', resume: true }, maxTurns: 12, maxBudgetUsd: 1.5 });
    expect((await fake.calls())[0]?.args.slice(-6)).toEqual([
      '--max-turns',
      '12',
      '--max-budget-usd',
      '1.5000',
      '--resume',
      'abc-123',
    ]);
  });

  it("regression: a plan session (permission mode plan) denies the writing tools, which a repository's own settings could allow", () => {
    const base = { bin: 'claude', cwd: '/', model: 'sonnet', prompt: '', env: {}, timeoutMs: 1 };
    const plan = claudeArgs({ ...base, permissionMode: 'plan', allowedTools: ['Read', 'Glob', 'Grep'] });
    expect(plan.slice(plan.indexOf('--permission-mode'), plan.indexOf('--permission-mode') + 2)).toEqual([
      '--permission-mode',
      'plan',
    ]);
    expect(plan.slice(plan.indexOf('--disallowedTools'), plan.indexOf('--disallowedTools') + 2)).toEqual([
      '--disallowedTools',
      'Bash,Edit,MultiEdit,Write,NotebookEdit',
    ]);
    const work = claudeArgs({ ...base, permissionMode: 'acceptEdits', allowedTools: ['Bash', 'Edit'] });
    expect(work).toContain('--allowedTools');
    expect(work).not.toContain('--disallowedTools');
  });

  it('regression: no money left is the least budget the CLI takes, not 0 (which it refuses as an argument error)', () => {
    const args = claudeArgs({
      bin: 'claude',
      cwd: '/',
      model: 'sonnet',
      prompt: '',
      env: {},
      timeoutMs: 1,
      maxBudgetUsd: 0,
    });
    expect(args.slice(args.indexOf('--max-budget-usd'), args.indexOf('--max-budget-usd') + 2)).toEqual([
      '--max-budget-usd',
      '0.0001',
    ]);
  });

  it('reads the stream the real CLI printed (recorded): responses, tool calls and the newest request as the context', async () => {
    const fake = await fakeClaude([{ fixture: 'stream-tool-call.jsonl' }]);
    const events: string[] = [];
    const result = await run(fake, {
      session: { id: 'rec-1', resume: false },
      onEvent: (e) => events.push(e.type === 'tool_call' ? `tool_call:${e.name}` : e.type),
    });
    const recorded = recordedResult('stream-tool-call.jsonl') as {
      usage: {
        [k in
          | 'input_tokens'
          | 'cache_creation_input_tokens'
          | 'cache_read_input_tokens'
          | 'output_tokens']: number;
      };
    };
    expect(result).toMatchObject({
      ok: true,
      sessionId: 'rec-1',
      modelCalls: 2,
      toolCalls: 1,
      toolErrors: 0,
    });
    expect(events).toEqual(['response', 'tool_call:Write', 'tool_result', 'response']);
    // Two requests summed in the result; the context is the second one's size, under that sum.
    const summed =
      recorded.usage.input_tokens +
      recorded.usage.cache_creation_input_tokens +
      recorded.usage.cache_read_input_tokens +
      recorded.usage.output_tokens;
    expect(result.contextTokens).toBeLessThan(summed);
    expect(result.costUsd).toBeCloseTo(Number(recordedResult('stream-tool-call.jsonl').total_cost_usd), 9);
  });

  it.each([
    ['result-429.json', 'rate_limit'],
    ['result-529.json', 'overloaded'],
    ['result-500.json', 'server_error'],
    ['result-401.json', 'auth'],
    ['result-402.json', 'billing'],
    ['result-prompt-too-long.json', 'context_overflow'],
    ['result-not-logged-in.json', 'auth'],
  ])('the recorded %s is a failure of class %s', async (name, errorClass) => {
    const fake = await fakeClaude([{ fixture: name, exit: 1 }]);
    const result = await run(fake);
    expect(result.ok ? undefined : result.error.errorClass).toBe(errorClass);
  });

  it('regression: --max-turns reached (recorded) is the model-call limit, not a model failure', async () => {
    const fake = await fakeClaude([{ fixture: 'result-max-turns.json', exit: 1 }]);
    const result = await run(fake, { maxTurns: 1 });
    expect(result).toMatchObject({ ok: false, limit: 'model_calls' });
    expect(result.text).toMatch(/turn limit/);
  });

  it('a session id the process printed that is not an id (a flag, a path) is not taken: the given one stays', async () => {
    for (const printed of ['--fork-session', '../../x', '']) {
      const fake = await fakeClaude([{ stdout: resultJson({ session_id: printed }) }]);
      const result = await run(fake, { session: { id: 'given-2', resume: false } });
      expect(result.sessionId).toBe('given-2');
    }
  });

  it('regression: a call killed before it printed anything still names the session it was given', async () => {
    const fake = await fakeClaude([{ stdout: resultJson(), hangMs: 60_000 }]);
    const result = await run(fake, { session: { id: 'given-1', resume: false }, timeoutMs: 500 });
    expect(result).toMatchObject({ ok: false, sessionId: 'given-1', error: { errorClass: 'timeout' } });
  });

  it.each([
    [
      'a 429 in an is_error result',
      {
        stdout: resultJson({
          is_error: true,
          result:
            'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
        }),
        exit: 1,
      },
      'rate_limit',
    ],
    [
      'a 402 credit balance',
      { stdout: resultJson({ is_error: true, result: 'Credit balance is too low' }), exit: 1 },
      'billing',
    ],
    [
      'a context overflow',
      {
        stdout: resultJson({
          is_error: true,
          result: 'API Error: 400 prompt is too long: 200082 tokens > 200000 maximum',
        }),
      },
      'context_overflow',
    ],
    [
      'no JSON, a network error on stderr',
      { stderr: 'Error: connect ECONNREFUSED 127.0.0.1:443\n', exit: 1 },
      'network',
    ],
    ['no JSON, nothing known', { stderr: 'something odd\n', exit: 3 }, 'unknown'],
  ])('%s is a failure of its class', async (_name, step, errorClass) => {
    const fake = await fakeClaude([step]);
    const result = await run(fake);
    expect(result.ok).toBe(false);
    expect(result.ok ? undefined : result.error.errorClass).toBe(errorClass);
  });

  it('a result that says is_error: false is a success whatever its text says', async () => {
    const fake = await fakeClaude([
      { stdout: resultJson({ result: 'Handled the 429 Too Many Requests retry logic.' }) },
    ]);
    expect((await run(fake)).ok).toBe(true);
  });

  it('a call that hangs past its timeout is stopped and classified timeout', async () => {
    // The fake hangs 60 s, past the test's own 20 s: a result at all means the call was stopped.
    const fake = await fakeClaude([{ stdout: resultJson(), hangMs: 60_000 }]);
    const result = await run(fake, { timeoutMs: 500 });
    expect(result).toMatchObject({ ok: false, error: { errorClass: 'timeout' } });
  });
});

describe('the time a Claude Code call gets', () => {
  it('regression: keeps the fallback its minute, so a call that times out can still hand over', () => {
    expect(callTimeoutMs(45 * 60_000, MIN_FALLBACK_MS)).toBe(44 * 60_000);
    expect(45 * 60_000 - callTimeoutMs(45 * 60_000, MIN_FALLBACK_MS)).toBeGreaterThanOrEqual(MIN_FALLBACK_MS);
    // A session too short for both gives the call all of it; without a fallback nothing is kept back.
    expect(callTimeoutMs(90_000, MIN_FALLBACK_MS)).toBe(90_000);
    expect(callTimeoutMs(45 * 60_000, 0)).toBe(45 * 60_000);
  });
});
