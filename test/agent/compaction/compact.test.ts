import { describe, expect, it } from 'vitest';
import { compactConversation } from '../../../src/agent/compaction/compact.js';
import { estimateTokens } from '../../../src/agent/compaction/estimate-tokens.js';
import { pairingProblems } from '../../../src/agent/compaction/pairing.js';
import { type MessageParam, ModelError } from '../../../src/model/types.js';
import {
  assistant,
  call,
  fakeModel,
  firstText,
  promptOf,
  response,
  result,
  SUMMARY,
  text,
  user,
} from './builders.js';

const ISSUE = 'Issue #12: parser crashes\n\nThe parser crashes on empty input.';
const big = (marker: string) => `${marker} ${'x'.repeat(4000)}`;

// Messages 0–4 are old and large; 5–6 are the recent turns a small budget keeps.
const conversation: MessageParam[] = [
  user(ISSUE),
  assistant([text('DROPPED-PLAN'), call('a', 'bash', { command: 'npm test' })]),
  user([result('a', big('DROPPED-FAILURE'), true)]),
  assistant([call('b', 'str_replace_based_edit_tool', { command: 'view', path: 'src/parser.ts' })]),
  user([result('b', big('DROPPED-SOURCE'))]),
  assistant([text('KEPT-EDIT'), call('c', 'bash', { command: 'npm run lint' })]),
  user([result('c', 'KEPT-LINT-OUTPUT'), text('KEPT-VERIFY')]),
];
const KEEP_LAST_TWO = estimateTokens(conversation.slice(5));

const options = (overrides: Partial<Parameters<typeof compactConversation>[0]> = {}) => ({
  messages: conversation,
  callModel: fakeModel().callModel,
  model: 'claude-test',
  maxTokens: 4096,
  files: { read: ['src/parser.ts'], created: [], modified: [] },
  keepTokens: KEEP_LAST_TWO,
  ...overrides,
});

describe('compactConversation', () => {
  it('summarises the dropped turns and keeps the recent ones verbatim', async () => {
    const fake = fakeModel();
    const outcome = await compactConversation(options({ callModel: fake.callModel }));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.keptFrom).toBe(5);
    expect(outcome.messages).toHaveLength(3);
    expect(outcome.messages.slice(1)).toEqual(conversation.slice(5));
    expect(pairingProblems(outcome.messages)).toEqual([]);
    expect(outcome.messages[0]?.role).toBe('user');
    expect(firstText(outcome.messages)).toBe(
      `CONTEXT FROM PREVIOUS SESSION:\n${outcome.summary}\n\nORIGINAL TASK:\n${ISSUE}`,
    );
    expect(outcome.summary).toContain('## Files read\n- src/parser.ts');
    expect(outcome.summary).toContain('## Tool failures\n- bash `npm test`: DROPPED-FAILURE');
    expect(outcome.summary).toContain('## Open task\nFinish it.');
    expect(outcome.afterTokens).toBe(estimateTokens(outcome.messages));
    expect(outcome.beforeTokens).toBe(estimateTokens(conversation));
    expect(outcome.afterTokens).toBeLessThan(outcome.beforeTokens);
    expect(outcome.usage).toEqual(response('').usage);
    expect(outcome.costUsd).toBe(0.0042);
  });

  it('sends the summariser the rendered prompt with the dropped transcript, not the kept turns', async () => {
    const fake = fakeModel();
    const controller = new AbortController();
    await compactConversation(options({ callModel: fake.callModel, signal: controller.signal }));
    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0];
    expect(request?.system).toEqual(['You summarise coding sessions for handover.']);
    expect(request?.tools).toEqual([]);
    expect(request?.model).toBe('claude-test');
    expect(request?.maxTokens).toBe(4096);
    expect(fake.signals[0]).toBe(controller.signal);
    const prompt = promptOf(request);
    expect(prompt).toContain('Answer with exactly these sections');
    expect(prompt).not.toContain('{{');
    for (const marker of [
      'parser crashes',
      'DROPPED-PLAN',
      'DROPPED-FAILURE',
      'DROPPED-SOURCE',
      'tool call bash: {"command":"npm test"}',
    ]) {
      expect(prompt).toContain(marker);
    }
    for (const marker of ['KEPT-EDIT', 'KEPT-LINT-OUTPUT', 'KEPT-VERIFY', 'npm run lint']) {
      expect(prompt).not.toContain(marker);
    }
  });

  it('merges the summary into a kept user message, before its content', async () => {
    const messages = [
      ...conversation,
      assistant('Lint passes.'),
      user('KEPT-CONTINUE'),
      assistant([call('d', 'bash', { command: 'git diff' })]),
      user([result('d', 'diff')]),
    ];
    const outcome = await compactConversation(
      options({ messages, keepTokens: estimateTokens(messages.slice(8)) }),
    );
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.keptFrom).toBe(8);
    expect(outcome.messages).toHaveLength(3);
    expect(outcome.messages[0]?.role).toBe('user');
    const content = outcome.messages[0]?.content;
    expect(Array.isArray(content) && content.length).toBe(2);
    expect(Array.isArray(content) && content[1]).toEqual(text('KEPT-CONTINUE'));
    expect(firstText(outcome.messages).startsWith('CONTEXT FROM PREVIOUS SESSION:\n## Files read')).toBe(
      true,
    );
    expect(outcome.messages.slice(1)).toEqual(messages.slice(9));
    expect(pairingProblems(outcome.messages)).toEqual([]);
  });

  it('keeps nothing verbatim when no tail fits, and still ends valid', async () => {
    const outcome = await compactConversation(options({ keepTokens: 0 }));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.keptFrom).toBe(conversation.length);
    expect(outcome.messages).toHaveLength(1);
    expect(pairingProblems(outcome.messages)).toEqual([]);
  });

  it('fails when the compaction does not shrink the context', async () => {
    const fake = fakeModel(`## Decisions\n${'long '.repeat(20_000)}`);
    const outcome = await compactConversation(options({ callModel: fake.callModel }));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.reason).toMatch(/^compaction did not shrink the context \(estimated \d+ → \d+ tokens\)$/);
    expect(outcome.usage).toEqual(response('').usage);
    expect(outcome.costUsd).toBe(0.0042);
  });

  it('fails with the error message when the model call throws', async () => {
    const fake = fakeModel(async () => {
      throw new ModelError('claude-test', {
        errorClass: 'overloaded',
        action: 'retry_backoff',
        retryable: true,
        failover: true,
        source: 'anthropic',
        message: 'Overloaded (529)',
      });
    });
    const outcome = await compactConversation(options({ callModel: fake.callModel }));
    expect(outcome).toEqual({ ok: false, reason: 'summary call failed: claude-test: Overloaded (529)' });
  });

  it('fails on an empty summary and on a refusal', async () => {
    const empty = await compactConversation(options({ callModel: fakeModel('  \n').callModel }));
    expect(empty).toMatchObject({
      ok: false,
      reason: 'the summariser returned an empty summary',
      costUsd: 0.0042,
    });
    const refused = fakeModel(async () => response("I can't help with that.", { stopReason: 'refusal' }));
    const outcome = await compactConversation(options({ callModel: refused.callModel }));
    expect(outcome).toMatchObject({ ok: false, reason: 'the summariser refused' });
  });

  it('fails with "nothing to compact" on an empty conversation, without calling the model', async () => {
    const fake = fakeModel();
    const outcome = await compactConversation(options({ messages: [], callModel: fake.callModel }));
    expect(outcome).toEqual({ ok: false, reason: 'nothing to compact' });
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects when aborted during the call', async () => {
    const controller = new AbortController();
    const fake = fakeModel(
      (_request, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort(new Error('stop requested'));
        }),
    );
    await expect(
      compactConversation(options({ callModel: fake.callModel, signal: controller.signal })),
    ).rejects.toThrow('stop requested');
  });

  it('rejects when aborted before, without calling the model, and when the call ignored the abort', async () => {
    const fake = fakeModel();
    await expect(
      compactConversation(
        options({ callModel: fake.callModel, signal: AbortSignal.abort(new Error('gone')) }),
      ),
    ).rejects.toThrow('gone');
    expect(fake.requests).toHaveLength(0);

    const controller = new AbortController();
    const deaf = fakeModel(async () => {
      controller.abort(new Error('late stop'));
      return response(SUMMARY);
    });
    await expect(
      compactConversation(options({ callModel: deaf.callModel, signal: controller.signal })),
    ).rejects.toThrow('late stop');
  });

  it('reports a malformed input instead of returning a broken conversation', async () => {
    // Two call messages in a row at the end: no valid tail exists, the shortest one is still broken.
    const messages = [
      user('Issue'),
      assistant(big('OLD')),
      user('continue'),
      assistant([call('a', 'bash')]),
      assistant([call('b', 'bash')]),
    ];
    const outcome = await compactConversation(options({ messages, keepTokens: 0 }));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.reason).toMatch(
      /^compacted conversation is malformed: message 1: tool_use a has no tool_result/,
    );
  });
});
