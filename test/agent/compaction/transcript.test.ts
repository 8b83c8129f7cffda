import { describe, expect, it } from 'vitest';
import { renderTranscript } from '../../../src/agent/compaction/transcript.js';
import { assistant, call, result, text, user } from './builders.js';

describe('renderTranscript', () => {
  it('renders headers, text, tool calls and results with their tool names', () => {
    const transcript = renderTranscript(
      [
        user('Issue #12: crash on empty input'),
        assistant([
          text('Let me look.'),
          call('a', 'bash', { command: 'npm test' }),
          call('b', 'str_replace_based_edit_tool', { command: 'view', path: 'src/a.ts' }),
        ]),
        user([result('a', '1 failed', true), result('b', 'export const a = 1;'), text('verify: failed')]),
      ],
      { maxChars: 10_000 },
    );
    expect(transcript).toBe(
      [
        '[user]',
        'Issue #12: crash on empty input',
        '',
        '[assistant]',
        'Let me look.',
        'tool call bash: {"command":"npm test"}',
        'tool call str_replace_based_edit_tool: {"command":"view","path":"src/a.ts"}',
        '',
        '[user]',
        'tool result (error) bash: 1 failed',
        'tool result str_replace_based_edit_tool: export const a = 1;',
        'verify: failed',
      ].join('\n'),
    );
  });

  it('truncates each tool input to 300 and each result to 500 characters, saying so', () => {
    const transcript = renderTranscript(
      [assistant([call('a', 'bash', { command: 'x'.repeat(1000) })]), user([result('a', 'y'.repeat(2000))])],
      { maxChars: 100_000 },
    );
    const lines = transcript.split('\n');
    const callLine = lines.find((line) => line.startsWith('tool call bash: '));
    const resultLine = lines.find((line) => line.startsWith('tool result bash: '));
    expect(callLine).toBe(
      `tool call bash: ${`{"command":"${'x'.repeat(1000)}"}`.slice(0, 300)}… [714 more chars]`,
    );
    expect(resultLine).toBe(`tool result bash: ${'y'.repeat(500)}… [1500 more chars]`);
  });

  it('keeps the head and the tail within maxChars', () => {
    const messages = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? user(`question ${i} ${'q'.repeat(200)}`) : assistant(`answer ${i} ${'a'.repeat(200)}`),
    );
    const full = renderTranscript(messages, { maxChars: 1_000_000 });
    const cut = renderTranscript(messages, { maxChars: 2000 });
    expect(full.length).toBeGreaterThan(2000);
    expect(cut.length).toBeLessThanOrEqual(2000);
    expect(cut.length).toBeGreaterThan(1900);
    expect(cut.startsWith('[user]\nquestion 0 ')).toBe(true);
    expect(cut.endsWith(`answer 39 ${'a'.repeat(200)}`)).toBe(true);
    expect(cut).toMatch(/\[… \d+ chars omitted …\]/);
    expect(cut).not.toContain('question 20 ');
  });

  it('leaves out private reasoning and marks other blocks by type', () => {
    const transcript = renderTranscript(
      [
        assistant([
          { type: 'thinking', thinking: 'SECRET-REASONING', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          text('visible'),
        ]),
        user([{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }]),
      ],
      { maxChars: 10_000 },
    );
    expect(transcript).toBe('[assistant]\nvisible\n\n[user]\n[image]');
  });
});
