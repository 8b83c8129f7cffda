import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../../src/config/schema.js';
import { runClaudeCode } from '../../../src/engines/claude-code/claude-code-run.js';
import { createClaudeCodeConversation } from '../../../src/engines/claude-code/conversation.js';
import { COMPACTION_REQUEST } from '../../../src/engines/engine.js';
import { createMemoryLog } from '../../helpers/memory-log.js';
import { FAKE_CLAUDE, fakeClaude, resultJson } from './fake-claude.js';

/** usage whose sum is `tokens` (the session-token count seed 000 tracks). */
const usage = (tokens: number) => ({
  input_tokens: tokens - 300,
  cache_creation_input_tokens: 100,
  cache_read_input_tokens: 100,
  output_tokens: 100,
});

async function conversationOn(
  scenario: unknown[],
  start?: { sessionId?: string; tokens: number; costUsd?: number },
) {
  const fake = await fakeClaude(scenario);
  const log = createMemoryLog();
  let ids = 0;
  const costs: number[] = [];
  const conversation = createClaudeCodeConversation({
    run: async ({ prompt, session, previousCostUsd }) => {
      const result = await runClaudeCode({
        bin: FAKE_CLAUDE,
        cwd: fake.dir,
        model: 'sonnet',
        prompt,
        env: fake.env,
        timeoutMs: 20_000,
        session,
        previousCostUsd,
      });
      costs.push(result.costUsd);
      return result;
    },
    threshold: 0.8,
    contextWindow: 100_000,
    log,
    newId: () => `new-${++ids}`,
    ...(start ? { start } : {}),
  });
  return { fake, conversation, log, costs };
}

describe('a task group as one Claude Code conversation', () => {
  it('resumes the session for the next task while the context stays under the threshold', async () => {
    const { fake, conversation } = await conversationOn([
      { stdout: resultJson({ usage: usage(50_000) }) },
      { stdout: resultJson({ usage: usage(60_000) }) },
    ]);
    await conversation.send('task one');
    const second = await conversation.send('task two');
    expect(second.compacted).toBeUndefined();
    const calls = await fake.calls();
    // The first call's session is named up front; the next one continues it.
    expect(calls[0]?.args.slice(-2)).toEqual(['--session-id', 'new-1']);
    expect(calls[1]?.args.slice(-2)).toEqual(['--resume', 'new-1']);
    expect(calls[1]?.prompt).toBe('task two');
  });

  it('past 80 % of the window: summary from the resumed session, then a fresh session with it', async () => {
    const { fake, conversation, log } = await conversationOn([
      {
        stdout: resultJson({
          session_id: 's-1',
          usage: usage(170_000),
          modelUsage: { x: { contextWindow: 200_000 } },
        }),
      },
      { stdout: resultJson({ session_id: 's-1', result: 'Edited src/a.ts (parse()); tests pass.' }) },
      { stdout: resultJson({ session_id: 's-2', usage: usage(10_000) }) },
    ]);
    const first = await conversation.send('task one');
    expect(first.compacted).toEqual({ percent: 85, summary: 'Edited src/a.ts (parse()); tests pass.' });
    await conversation.send('task two');
    const calls = await fake.calls();
    expect(calls.map((c) => c.args.includes('--resume'))).toEqual([false, true, false]);
    expect(calls[1]?.prompt).toBe(COMPACTION_REQUEST);
    expect(calls[1]?.args.slice(-2)).toEqual(['--resume', 's-1']);
    expect(calls[2]?.args.slice(-2)).toEqual(['--session-id', 'new-2']);
    expect(calls[2]?.prompt).toBe(
      'CONTEXT FROM PREVIOUS SESSION:\nEdited src/a.ts (parse()); tests pass.\n\nNEXT TASK: task two',
    );
    expect(log.entries.map((l) => l.msg)).toContain(
      'compaction: context at 85%, starting fresh session with summary',
    );
    expect(conversation.sessionId).toBe('s-2');
  });

  it('regression: the context is the newest request, not every request of the call summed (compacted at 12 % real)', async () => {
    // A call of three requests, each re-reading a 30,000-token context: summed, 93,000 tokens (93 %).
    const request = (tokens: number) => ({ usage: usage(tokens) });
    const { fake, conversation } = await conversationOn([
      {
        stdout: resultJson({ usage: usage(93_000) }),
        responses: [request(30_000), request(31_000), request(32_000)],
      },
      { stdout: resultJson({ usage: usage(33_000) }) },
    ]);
    const first = await conversation.send('task one');
    expect(first.compacted).toBeUndefined();
    expect(first.result.contextTokens).toBe(32_000);
    expect(first.result.modelCalls).toBe(3);
    expect(conversation.state().tokens).toBe(32_000);
    await conversation.send('task two');
    expect((await fake.calls()).map((c) => c.prompt)).toEqual(['task one', 'task two']);
  });

  it('regression: a resumed call costs its total less the session total before it, not the running total', async () => {
    const { conversation, costs } = await conversationOn(
      [
        { stdout: resultJson({ total_cost_usd: 0.31 }) },
        { stdout: resultJson({ total_cost_usd: 0.35 }) },
        // 2.1.x also says what this process spent since its last result: that is used when present.
        {
          stdout: resultJson({
            total_cost_usd: 0.4,
            model_usage_since_last_result: { 'claude-sonnet-5-5': { costUSD: 0.05 } },
          }),
        },
      ],
      { sessionId: 'group-1', tokens: 1_000, costUsd: 0.3 },
    );
    for (const task of ['a', 'b', 'c']) await conversation.send(task);
    expect(costs.map((c) => Number(c.toFixed(6)))).toEqual([0.01, 0.04, 0.05]);
    expect(conversation.state().costUsd).toBe(0.4);
  });

  it('a failed turn keeps its session id (for the seeded fallback) and the carried summary', async () => {
    const { conversation } = await conversationOn([
      {
        stdout: resultJson({ is_error: true, session_id: 's-9', result: 'Credit balance is too low' }),
        exit: 1,
      },
    ]);
    const turn = await conversation.send('task one');
    expect(turn.result).toMatchObject({ ok: false, error: { errorClass: 'billing' } });
    expect(conversation.sessionId).toBe('s-9');
  });

  it("continues a group's session from an earlier task: resumed, its tokens counted toward the threshold", async () => {
    const { fake, conversation } = await conversationOn(
      [
        // Resumed, the call re-reads the group's whole conversation: 85,000 tokens, past 80 % of 100,000.
        { stdout: resultJson({ session_id: 'group-1', usage: usage(85_000), modelUsage: {} }) },
        { stdout: resultJson({ session_id: 'group-1', result: 'Done: files a.ts, b.ts.' }) },
      ],
      { sessionId: 'group-1', tokens: 60_000 },
    );
    expect(conversation.state()).toEqual({ sessionId: 'group-1', tokens: 60_000, costUsd: 0 });
    await conversation.send('NEXT TASK: three');
    const calls = await fake.calls();
    expect(calls[0]?.args.join(' ')).toContain('--resume group-1');
    expect(calls[1]?.prompt).toBe(COMPACTION_REQUEST);
    expect(conversation.state()).toEqual({ tokens: 0, costUsd: 0, summary: 'Done: files a.ts, b.ts.' });
  });

  it('regression: a session the CLI does not have (another runner) starts fresh instead of failing the task', async () => {
    const { fake, conversation, log } = await conversationOn(
      [
        {
          stdout: resultJson({
            is_error: true,
            subtype: 'error_during_execution',
            result: 'No conversation found with session ID: group-9',
          }),
          exit: 1,
        },
        { stdout: resultJson({ session_id: 'fresh-1', result: 'Done.' }) },
      ],
      { sessionId: 'group-9', tokens: 10_000 },
    );
    const turn = await conversation.send('NEXT TASK: four');
    expect(turn.result.ok).toBe(true);
    const calls = await fake.calls();
    expect(calls[0]?.args.join(' ')).toContain('--resume group-9');
    expect(calls[1]?.args.join(' ')).not.toContain('--resume');
    expect(calls[1]?.prompt).toBe('NEXT TASK: four');
    expect(conversation.state().sessionId).toBe('fresh-1');
    expect(log.entries.some((e) => e.msg?.includes('session group-9 is not here'))).toBe(true);
  });
});

describe("a failed call's class", () => {
  it("regression: comes from the result's api_error_status, not only its text", async () => {
    const fake = await fakeClaude([
      {
        stdout: resultJson({
          is_error: true,
          result: 'API Error: something went wrong',
          api_error_status: 529,
        }),
        exit: 1,
      },
      {
        stdout: resultJson({
          is_error: true,
          result: 'API Error',
          api_error_status: 429,
          api_error_type: 'rate_limit_error',
        }),
        exit: 1,
      },
    ]);
    const run = () =>
      runClaudeCode({
        bin: FAKE_CLAUDE,
        cwd: fake.dir,
        model: 'sonnet',
        prompt: 'x',
        env: fake.env,
        timeoutMs: 20_000,
      });
    const overloaded = await run();
    expect(overloaded.ok).toBe(false);
    expect(overloaded.ok ? undefined : overloaded.error.errorClass).toBe('overloaded');
    const limited = await run();
    expect(limited.ok ? undefined : limited.error.errorClass).toBe('rate_limit');
  });
});

describe('claude_code.permission_mode', () => {
  it("regression: takes the 2.1.x CLI's choices (auto and manual were refused; default is not one)", () => {
    for (const mode of ['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan']) {
      expect(ConfigSchema.parse({ claude_code: { permission_mode: mode } }).claude_code.permission_mode).toBe(
        mode,
      );
    }
    expect(() => ConfigSchema.parse({ claude_code: { permission_mode: 'default' } })).toThrow();
  });
});
