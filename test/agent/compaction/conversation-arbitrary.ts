import fc from 'fast-check';
import type { ContentBlockParam, MessageParam } from '../../../src/model/types.js';

/**
 * Valid agent-loop conversations: the issue as a user message, then exchanges of an assistant
 * message (text and/or 0–4 parallel tool calls) and a user message (every result in one message,
 * sometimes errors, sometimes followed by verify output; or plain text after an answer without
 * calls). Some end on the assistant's final answer, none on unanswered calls.
 */

const words = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength });

const exchangeArb = fc.record({
  thought: fc.option(words(400), { nil: undefined }),
  calls: fc.array(
    fc.record({
      tool: fc.constantFrom('bash', 'str_replace_based_edit_tool'),
      arg: words(120),
      output: words(2000),
      isError: fc.boolean(),
      asBlocks: fc.boolean(),
    }),
    { maxLength: 4 },
  ),
  followUp: fc.option(words(300), { nil: undefined }),
  plainUser: words(200),
});

export const conversationArb: fc.Arbitrary<MessageParam[]> = fc
  .record({
    issue: words(1500),
    exchanges: fc.array(exchangeArb, { maxLength: 12 }),
    endOnAnswer: fc.boolean(),
  })
  .map(({ issue, exchanges, endOnAnswer }) => {
    const messages: MessageParam[] = [{ role: 'user', content: `Issue #12: title\n\n${issue}` }];
    exchanges.forEach((exchange, e) => {
      const ids = exchange.calls.map((_, c) => `toolu_${e}_${c}`);
      const said: ContentBlockParam[] =
        exchange.thought === undefined ? [] : [{ type: 'text', text: exchange.thought }];
      const calls: ContentBlockParam[] = exchange.calls.map((c, i) => ({
        type: 'tool_use',
        id: ids[i] ?? '',
        name: c.tool,
        input: c.tool === 'bash' ? { command: c.arg } : { command: 'view', path: c.arg },
      }));
      // An assistant message always says something: text, calls, or a short answer.
      const content = [...said, ...calls];
      messages.push({ role: 'assistant', content: content.length > 0 ? content : 'Done.' });
      if (calls.length === 0) {
        messages.push({ role: 'user', content: exchange.plainUser || 'continue' });
        return;
      }
      const results: ContentBlockParam[] = exchange.calls.map((c, i) => ({
        type: 'tool_result',
        tool_use_id: ids[i] ?? '',
        content: c.asBlocks ? [{ type: 'text', text: c.output || '(empty)' }] : c.output,
        ...(c.isError ? { is_error: true } : {}),
      }));
      const followUp: ContentBlockParam[] =
        exchange.followUp === undefined ? [] : [{ type: 'text', text: `verify: ${exchange.followUp}` }];
      messages.push({ role: 'user', content: [...results, ...followUp] });
    });
    if (endOnAnswer)
      messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Changed src/a.ts.' }] });
    return messages;
  });
