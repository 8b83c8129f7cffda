import { describe, expect, it } from 'vitest';
import { createMemoryOutcomeStore } from '../../src/claims/file-outcome-store.js';
import {
  createAnthropicEmulator,
  type ParsedMessagesRequest,
  reply,
} from '../../src/emulators/anthropic/index.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { LONG_LEASE, member, roundsFixture } from './rounds-fixture.js';

/**
 * Issue 32, through a whole run: after a first attempt fails verify, the three attempts of the next
 * claim each get the last failure and their own direction, so they do not all start alike.
 */
const { setup } = roundsFixture();

const VERIFY = 'grep -q "\'hello\'" greet.js';

/** The text of a request's first user message. */
function firstText(request: ParsedMessagesRequest): string {
  const content = request.messages[0]?.content;
  if (typeof content === 'string') return content;
  return (content ?? []).map((block) => ('text' in block ? String(block.text) : '')).join('');
}

describe('attempts that differ, and retries that know why the last one failed (issue 32)', () => {
  it('three attempts after a verify failure: each first message holds the last failure and its own direction', {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx, newSource } = await setup({
      workers: 3,
      verify: { command: VERIFY, retries: 0 },
      ...LONG_LEASE,
      attempts: { n: 3 },
    });
    const issue = gh.emulator.addIssue(member('Fix the greeting typo'));
    /** Each session's first message, by its branch (`-a<k>` for an attempt, none for the first claim). */
    const firsts = new Map<string, string>();
    const anthropic = createAnthropicEmulator({
      script: (request) => {
        const branch = /issueloop\/issue-\d+(-a\d)?/.exec(JSON.stringify(request.system));
        if (request.messages.length > 1 || !branch) return reply.text('Done.');
        firsts.set(branch[1] ?? 'first', firstText(request));
        const word = branch[1] === '-a3' ? 'hello' : 'hallo';
        return reply.toolUse([
          {
            name: 'str_replace_based_edit_tool',
            input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: `'${word}'` },
          },
        ]);
      },
    });
    const source = newSource({ outcomes: createMemoryOutcomeStore() });
    const models = emulatedModels(anthropic, ctx.deps, ctx.redact);
    const run = await runRounds({ ...ctx, source, models }, { owner: 'host:1', maxRounds: 200 });

    expect(run.reports.map((r) => r.outcome)).toEqual(['verify_failed', 'resolved']);
    expect([...firsts.keys()].sort()).toEqual(['-a1', '-a2', '-a3', 'first']);

    // The first claim: the issue alone, no last attempt, no direction.
    const first = firsts.get('first') ?? '';
    expect(first).toContain(`Issue #${issue}: Fix the greeting typo`);
    expect(first).not.toContain('## The last attempt');
    expect(first).not.toContain('## Your direction');

    const attempts = ['-a1', '-a2', '-a3'].map((k) => firsts.get(k) ?? '');
    expect(new Set(attempts).size).toBe(3);
    for (const [i, message] of attempts.entries()) {
      expect(message).toContain(`Issue #${issue}: Fix the greeting typo`);
      expect(message).toContain('## The last attempt\n');
      expect(message).toContain(`(verify_failed): its change failed the verify command`);
      expect(message).toContain(`Reported: \`${VERIFY}\` failed (exit 1)`);
      // The direction comes last, after the last attempt.
      expect(message.indexOf('## Your direction')).toBeGreaterThan(message.indexOf('## The last attempt'));
      expect(message).toContain(`## Your direction: attempt ${i + 1} of 3`);
      expect(message).toContain('Only one of them is kept');
    }
    expect(attempts[0]).toContain('**The most direct change.**');
    expect(attempts[1]).toContain('**A different approach.**');
    expect(attempts[2]).toContain('**Test first.**');
    // The winner was attempt 3 (the only one that passed verify).
    expect(run.reports[1]?.reason).toContain('chosen from 3 attempts');
  });
});
