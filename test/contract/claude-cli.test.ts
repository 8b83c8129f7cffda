import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { reply, scriptQueue } from '../../src/emulators/anthropic/index.js';
import { createClaudeCodeConversation } from '../../src/engines/claude-code/conversation.js';
import { PLACEHOLDER_PREFIXES } from '../../src/engines/claude-code/model-access.js';
import { readSessionSeed } from '../../src/engines/claude-code/session-history.js';
import { COMPACTION_REQUEST } from '../../src/engines/engine.js';
import { costOf, priceOf } from '../../src/model/prices.js';
import { createMemoryLog } from '../helpers/memory-log.js';
import {
  CLAUDE_CODE_VERSION,
  claudeHarness,
  contractSuite,
  EMULATOR_KEY,
  ID,
  record,
  sessionFileText,
} from './real-claude.js';

/**
 * The Claude Code engine against the real `claude` CLI (the pinned release .ci/run installs), pointed
 * at the project's scripted Anthropic server on loopback: what the fake `claude` of the engine's
 * other tests imitates is checked here against the real thing, and recorded from it.
 */
const { contract, call } = contractSuite('the Claude Code contract suite');

contract(`the real claude ${CLAUDE_CODE_VERSION} (contract)`, { timeout: 120_000 }, () => {
  it('accepts the argv issueloop passes, logged in with ANTHROPIC_API_KEY alone; the stream and its result are read (a tool call, then the answer)', async () => {
    let worktree = '';
    // The Write tool wants an absolute path: the script reads the worktree when the request comes.
    const h = await claudeHarness({
      script: scriptQueue([
        () =>
          reply.toolUse([{ name: 'Write', input: { file_path: join(worktree, 'x.txt'), content: 'hi\n' } }]),
        reply.text('Wrote x.txt.'),
      ]),
    });
    worktree = h.worktree;
    const result = await call(h, 'write x.txt', { session: { id: ID(1), resume: false } });
    await record('stream-tool-call.jsonl', result.lines.join('\n'));
    expect(result).toMatchObject({
      ok: true,
      text: 'Wrote x.txt.',
      sessionId: ID(1),
      modelCalls: 2,
      toolCalls: 1,
    });
    expect(await readFile(join(h.worktree, 'x.txt'), 'utf8')).toBe('hi\n');
    expect(result.contextWindow).toBeGreaterThan(0);
    // A fresh session's call costs what its total says.
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.costUsd).toBeCloseTo(result.sessionCostUsd, 9);
    // The context is the newest request, not the sum of both requests (each re-read the prompt).
    const summed =
      result.usage.input + result.usage.cacheWrite + result.usage.cacheRead + result.usage.output;
    expect(result.contextTokens).toBeLessThan(summed);
    expect(result.contextTokens).toBeGreaterThan(summed / 2 - 1_000);
    // The emulator takes only the real key: the CLI held a placeholder, the proxy put the key in.
    expect(h.messageRequests().filter((r) => r.status === 200)).toHaveLength(2);
    expect(h.env.ANTHROPIC_API_KEY?.startsWith(PLACEHOLDER_PREFIXES.ANTHROPIC_API_KEY)).toBe(true);
    expect(JSON.stringify(h.env)).not.toContain(EMULATOR_KEY);
  });

  it('regression: a response the CLI prints over several lines is one response, and a failing tool is counted as a tool error', async () => {
    const h = await claudeHarness({
      script: scriptQueue([
        reply.toolUse(
          [
            { name: 'Bash', input: { command: 'echo fine', description: 'succeeds' } },
            { name: 'Bash', input: { command: 'exit 3', description: 'fails' } },
          ],
          'Running two commands.',
        ),
        reply.text('One of them failed.'),
      ]),
    });
    const responses: string[] = [];
    const result = await call(h, 'run two commands', {
      session: { id: ID(9), resume: false },
      onEvent: (e) => {
        if (e.type === 'response') responses.push(e.id);
      },
    });
    await record('stream-split-tool-error.jsonl', result.lines.join('\n'));
    // The CLI did print the first response over several lines with one id (else this proves nothing).
    const ids = result.lines.flatMap((line) => {
      const json = line.startsWith('{')
        ? (JSON.parse(line) as { type?: string; message?: { id?: string } })
        : {};
      return json.type === 'assistant' && json.message?.id ? [json.message.id] : [];
    });
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(new Set(ids).size).toBe(2);
    expect(result).toMatchObject({
      ok: true,
      text: 'One of them failed.',
      modelCalls: 2,
      toolCalls: 2,
      toolErrors: 1,
    });
    expect(responses).toEqual([...new Set(ids)]);
  });

  it('a resumed 4-task group: each call costs its own share, and the shares add up to the CLI total', async () => {
    const h = await claudeHarness({});
    const costs: number[] = [];
    let total = 0;
    let naive = 0;
    const conversation = createClaudeCodeConversation({
      run: async ({ prompt, session, previousCostUsd }) => {
        const r = await call(h, prompt, { session, previousCostUsd });
        costs.push(r.costUsd);
        total = r.sessionCostUsd;
        naive += r.sessionCostUsd; // what adding the totals recorded
        if (costs.length === 2) await record('stream-resumed.jsonl', r.lines.join('\n'));
        return r;
      },
      threshold: 0.8,
      contextWindow: 200_000,
      log: createMemoryLog(),
    });
    for (const task of ['task one', 'task two', 'task three', 'task four']) {
      expect((await conversation.send(task)).result.ok).toBe(true);
    }
    const recorded = costs.reduce((a, b) => a + b, 0);
    console.log(
      `contract figures: 4-task group recorded $${recorded.toFixed(6)}, CLI total (list prices) $${total.toFixed(6)}, adding totals would record $${naive.toFixed(6)}`,
    );
    expect(recorded).toBeCloseTo(total, 9);
    expect(naive).toBeGreaterThan(1.5 * total);
    expect(h.messageRequests().length).toBeGreaterThanOrEqual(4);
    // What the proxy read from the streams, priced by issueloop's table, against what the emulator served.
    const served = h.emulator.cacheStats();
    const expected = costOf(served, priceOf('claude-sonnet-5-5'));
    const measured = h.spent();
    console.log(
      `contract figures: through the proxy ${measured?.responses} responses, ${JSON.stringify(measured?.usage)} = $${measured?.costUsd.toFixed(6)}; the emulator served ${served.requests} responses, ${JSON.stringify({ ...served, requests: undefined })} = $${expected.toFixed(6)} (the CLI's own total: $${total.toFixed(6)})`,
    );
    expect(measured?.responses).toBe(served.requests);
    expect(Math.abs((measured?.costUsd ?? 0) - expected)).toBeLessThanOrEqual(0.01 * expected);
  });

  it('compaction is judged on the real context: under the threshold it resumes, past it a summary then a fresh session', async () => {
    const h = await claudeHarness({});
    const prompts: string[] = [];
    let context = 0;
    let summed = 0;
    const make = (threshold: number) =>
      createClaudeCodeConversation({
        run: async ({ prompt, session, previousCostUsd }) => {
          prompts.push(prompt);
          const r = await call(h, prompt, { session, previousCostUsd });
          context = r.contextTokens;
          summed = r.usage.input + r.usage.cacheWrite + r.usage.cacheRead + r.usage.output;
          return r;
        },
        threshold,
        contextWindow: 200_000,
        log: createMemoryLog(),
      });
    const first = await make(0.8).send('task one');
    expect(first.compacted).toBeUndefined();
    const window = first.result.contextWindow ?? 200_000;
    // Just under the context the CLI reported: compaction at the percentage the real context is at.
    const tight = make((context - 100) / window);
    prompts.length = 0;
    const turn = await tight.send('task one');
    expect(turn.compacted?.percent).toBe(Math.round((100 * context) / window));
    await tight.send('task two');
    expect(prompts.slice(0, 3)).toEqual([
      'task one',
      COMPACTION_REQUEST,
      expect.stringMatching(/^CONTEXT FROM PREVIOUS SESSION:\n[\s\S]+\n\nNEXT TASK: task two$/),
    ]);
    console.log(
      `contract figures: context at compaction ${turn.compacted?.percent}% of ${window}, real context ${context} tokens, the call's usage summed ${summed} tokens`,
    );
  });

  it('the seeded fallback reads a real session file, compacted with /compact: its summary, no CLI noise', async () => {
    const h = await claudeHarness({});
    const id = ID(2);
    expect((await call(h, 'first task: add a greet function', { session: { id, resume: false } })).ok).toBe(
      true,
    );
    expect((await call(h, '/compact', { session: { id, resume: true } })).ok).toBe(true);
    expect((await call(h, 'third task: rename greet', { session: { id, resume: true } })).ok).toBe(true);
    const text = await sessionFileText(h.claudeHome, id);
    await record('session-compacted.jsonl', text);
    const seed = await readSessionSeed({ claudeHome: h.claudeHome, cwd: h.worktree, sessionId: id });
    expect(seed?.summary).toMatch(/continued from a previous conversation/);
    expect(seed?.summary).not.toBe('Conversation compacted');
    const turns = seed?.turns.map((t) => t.text).join('\n') ?? '';
    expect(turns).toContain('third task: rename greet');
    expect(turns).not.toContain('first task');
    expect(turns).not.toMatch(/local-command|command-name/);
  });
});
