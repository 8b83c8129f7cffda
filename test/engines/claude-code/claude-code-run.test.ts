import { describe, expect, it } from 'vitest';
import { runClaudeCode } from '../../../src/engines/claude-code/claude-code-run.js';
import { FAKE_CLAUDE, fakeClaude, resultJson } from './fake-claude.js';

const run = (
  fake: Awaited<ReturnType<typeof fakeClaude>>,
  extra: { resume?: string; timeoutMs?: number } = {},
) =>
  runClaudeCode({
    bin: FAKE_CLAUDE,
    cwd: fake.dir,
    model: 'sonnet',
    prompt: 'Fix the greeting typo',
    env: fake.env,
    timeoutMs: extra.timeoutMs ?? 20_000,
    ...(extra.resume ? { resume: extra.resume } : {}),
  });

describe('runClaudeCode against a fake claude on the same command line', () => {
  it('success: the prompt on stdin, the JSON flags, session id, usage, context window and cost read', async () => {
    const fake = await fakeClaude([{ stdout: resultJson() }]);
    const result = await run(fake);
    expect(result).toEqual({
      ok: true,
      text: 'Fixed the typo in greet.js.',
      sessionId: '3f1c2e6a-1b2c-4d5e-8f90-123456789abc',
      usage: { input: 1200, cacheWrite: 3000, cacheRead: 9000, output: 800 },
      contextWindow: 200_000,
      costUsd: 0.0421,
      exitCode: 0,
    });
    const [call] = await fake.calls();
    expect(call?.args).toEqual(['-p', '--output-format', 'json', '--model', 'sonnet']);
    expect(call?.prompt).toBe('Fix the greeting typo');
  });

  it('resumes a session with --resume', async () => {
    const fake = await fakeClaude([{ stdout: resultJson() }]);
    await run(fake, { resume: 'abc-123' });
    expect((await fake.calls())[0]?.args.slice(-2)).toEqual(['--resume', 'abc-123']);
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
    const fake = await fakeClaude([{ stdout: resultJson(), hangMs: 60_000 }]);
    const started = Date.now();
    const result = await run(fake, { timeoutMs: 500 });
    expect(result).toMatchObject({ ok: false, error: { errorClass: 'timeout' } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
