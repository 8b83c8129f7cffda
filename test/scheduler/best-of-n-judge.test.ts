import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryOutcomeStore } from '../../src/claims/file-outcome-store.js';
import { spentUsd } from '../../src/claims/outcome-record.js';
import { readStatus } from '../../src/cli/commands/status.js';
import {
  createAnthropicEmulator,
  type ParsedMessagesRequest,
  reply,
} from '../../src/emulators/anthropic/index.js';
import { liveMentions } from '../../src/emulators/github/index.js';
import { BEST_OF_N_LABEL } from '../../src/github/labels.js';
import { parseSessionsLine } from '../../src/github/tracked-sessions.js';
import { outcomeReport } from '../../src/run/outcome-report.js';
import { runRounds } from '../../src/scheduler/run-rounds.js';
import { emulatedModels } from '../helpers/emulated-models.js';
import { LONG_LEASE, member, roundsFixture } from './rounds-fixture.js';

/**
 * Issue 32 item 1's loose ends through a whole run where the judge is called: attempts 2 and 3 both
 * pass verify, the judge (the scripted model) picks 3 with a reason that mentions someone. Its call
 * is on the issue's record and in `report`'s and `status`'s dollars; the comment names the pick,
 * neutralised.
 */
const { setup } = roundsFixture();

const WORDS: Readonly<Record<string, string>> = { '1': 'hallo', '2': 'hello', '3': 'hello' };

function script(request: ParsedMessagesRequest) {
  const system = JSON.stringify(request.system);
  if (system.includes('You compare candidate code changes')) {
    return reply.text('{"choice": 3, "reason": "it reads best, ask @octocat"}');
  }
  if (request.messages.length > 1) return reply.text('Done.');
  const attempt = /issueloop\/issue-\d+-a(\d)/.exec(system)?.[1] ?? '';
  return reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: {
        command: 'str_replace',
        path: 'greet.js',
        old_str: "'helo'",
        new_str: `'${WORDS[attempt] ?? 'hallo'}'`,
      },
    },
  ]);
}

describe('best-of-N with a judge: its cost and its pick, everywhere (issue 32 item 1)', () => {
  it("the judge's call is on the issue's record, in report's and status's dollars; the comment names its pick, neutralised", {
    timeout: 30_000,
  }, async () => {
    const { gh, ctx, clock, newSource } = await setup({
      workers: 3,
      verify: { command: 'grep -q "\'hello\'" greet.js', retries: 0 },
      ...LONG_LEASE,
      attempts: { n: 3, judge_model: 'claude-haiku-5-5' },
    });
    const issue = gh.emulator.addIssue(
      member('Fix the greeting typo', { labels: ['issueloop', BEST_OF_N_LABEL] }),
    );
    const outcomes = createMemoryOutcomeStore();
    const source = newSource({ outcomes });
    const models = emulatedModels(createAnthropicEmulator({ script }), ctx.deps, ctx.redact);
    const run = await runRounds({ ...ctx, source, models }, { owner: 'host:1', maxRounds: 3 });

    const [claim] = run.reports;
    expect(claim?.outcome).toBe('resolved');
    expect(claim?.bestOf?.winner).toBe(3);

    const record = await outcomes.get(issue);
    const judged = record?.sessions.filter((s) => s.outcome === 'judged') ?? [];
    expect(judged.map((s) => s.models)).toEqual([['claude-haiku-5-5']]);
    expect(judged[0]?.usd).toBeGreaterThan(0);
    // The claim's dollars are its attempts' and the judge's, and nothing else.
    expect(spentUsd(record ?? { sessions: [] })).toBeCloseTo(claim?.costUsd ?? 0, 10);
    const { total } = outcomeReport(record ? [record] : [], {
      since: '30d',
      sinceMs: 30 * 86_400_000,
      now: clock.now(),
    });
    expect(total.usd_total).toBeCloseTo(claim?.costUsd ?? 0, 6);

    const status = await readStatus(dirname(dirname(ctx.ledger.file)), [], clock.now());
    expect(status.lastRun?.issues[0]).toMatchObject({
      issue,
      sessions: 3,
      bestOf: { n: 3, ran: 3, winner: 3 },
    });
    expect(status.lastRun?.issues[0]?.costUsd).toBeCloseTo(claim?.costUsd ?? 0, 10);

    const comment =
      gh.emulator.comments(issue).find((c) => c.body.includes('issueloop:tracking'))?.body ?? '';
    const row = comment.split('\n').find((line) => line.startsWith('| Attempts |')) ?? '';
    expect(row).toContain(
      'best of 3: attempt 3 chosen (the judge’s pick: it reads best, ask @\u2060octocat)',
    );
    expect(liveMentions(comment)).toEqual([]);
    // The comment lists the three attempts and the judge, so a fresh store imports all four.
    expect(
      parseSessionsLine(comment)
        ?.map((s) => s.outcome)
        .sort(),
    ).toEqual(['judged', 'not_chosen', 'resolved', 'verify_failed']);
  });
});
