import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactConversation } from '../../../src/agent/compaction/compact.js';
import { chooseKeepFrom, isSafeCut } from '../../../src/agent/compaction/cut-points.js';
import { estimateTokens } from '../../../src/agent/compaction/estimate-tokens.js';
import { pairingProblems } from '../../../src/agent/compaction/pairing.js';
import type { MessageParam } from '../../../src/model/types.js';
import { fakeModel, firstText, NO_FILES } from './builders.js';
import { conversationArb } from './conversation-arbitrary.js';

/** A conversation and a budget anywhere from nothing to more than all of it. */
const caseArb = conversationArb.chain((messages) =>
  fc.record({
    messages: fc.constant(messages),
    keepTokens: fc.integer({ min: 0, max: Math.ceil(estimateTokens(messages) * 1.2) + 10 }),
  }),
);

const DOCUMENTED = /^(nothing to compact|compaction did not shrink the context)/;

describe('compaction over generated conversations', () => {
  it('generates valid conversations', () => {
    fc.assert(fc.property(conversationArb, (messages) => pairingProblems(messages).length === 0));
  });

  it('chooses the smallest safe cut ≥ 1 whose tail fits', () => {
    fc.assert(
      fc.property(caseArb, ({ messages, keepTokens }) => {
        const cut = chooseKeepFrom(messages, keepTokens);
        expect(cut).toBeGreaterThanOrEqual(1);
        expect(isSafeCut(messages, cut)).toBe(true);
        expect(estimateTokens(messages.slice(cut))).toBeLessThanOrEqual(keepTokens);
        for (let i = 1; i < cut; i++) {
          expect(isSafeCut(messages, i) && estimateTokens(messages.slice(i)) <= keepTokens).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('returns a valid, smaller conversation that opens with the summary, or a documented failure', async () => {
    let compacted = 0;
    let declined = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ messages, keepTokens }) => {
        const outcome = await compactConversation({
          messages,
          callModel: fakeModel().callModel,
          model: 'claude-test',
          maxTokens: 2048,
          files: NO_FILES,
          keepTokens,
        });
        if (!outcome.ok) {
          declined++;
          expect(outcome.reason).toMatch(DOCUMENTED);
          return;
        }
        compacted++;
        const next: MessageParam[] = outcome.messages;
        expect(pairingProblems(next)).toEqual([]);
        expect(next[0]?.role).toBe('user');
        // A kept user message takes the summary in, rather than following it as a second user turn.
        expect(next[1]?.role).not.toBe('user');
        expect(firstText(next).startsWith('CONTEXT FROM PREVIOUS SESSION:')).toBe(true);
        expect(firstText(next)).toContain(`ORIGINAL TASK:\n${firstText(messages).trim()}`);
        expect(outcome.afterTokens).toBeLessThan(outcome.beforeTokens);
        // The kept turns survive verbatim (the first may have the summary merged in front of it).
        const kept = messages.slice(outcome.keptFrom);
        const tail = next.slice(next.length - kept.length);
        if (kept[0]?.role === 'user') expect(tail.slice(1)).toEqual(kept.slice(1));
        else expect(tail).toEqual(kept);
      }),
      { numRuns: 300 },
    );
    // The property must have been exercised both ways, or it proved little.
    expect(compacted).toBeGreaterThan(50);
    expect(declined).toBeGreaterThan(0);
  });
});
