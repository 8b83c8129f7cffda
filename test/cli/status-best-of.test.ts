import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readStatus, renderStatus } from '../../src/cli/commands/status.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const NOW = Date.parse('2026-11-26T01:00:00Z');

async function ledgerOf(events: Array<Record<string, unknown>>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-status-'));
  await mkdir(join(dir, 'runs'));
  const lines = events.map((e) => JSON.stringify({ ts: '2026-11-26T00:00:00Z', run: 'r1', ...e }));
  await writeFile(join(dir, 'runs', 'r1.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

const outcome = (issue: number, more: Record<string, unknown>) => ({
  type: 'outcome',
  issue,
  outcome: 'verify_failed',
  costUsd: 0.25,
  durationMs: 60_000,
  reason: 'verify failed',
  ...more,
});

const attempts = (issue: number, more: Record<string, unknown>) => ({
  type: 'attempts',
  issue,
  n: 3,
  attempts: [
    { attempt: 1, outcome: 'verify_failed', costUsd: 0.25 },
    { attempt: 2, outcome: 'resolved', costUsd: 0.25 },
    { attempt: 3, outcome: 'not_chosen', costUsd: 0.25 },
  ],
  why: 'the smaller diff',
  judgeUsd: 0.125,
  costUsd: 0.875,
  ...more,
});

describe('status: a best-of-N claim (issue 32 item 1)', () => {
  it("says best of N on the issue's line, counts each attempt as a session, and its dollars hold the judge's", async () => {
    const stateDir = await ledgerOf([
      outcome(7, {}),
      attempts(7, { winner: 2 }),
      outcome(7, { outcome: 'resolved', costUsd: 0.875, pr: 'https://github.test/o/r/pull/9' }),
      outcome(8, {}),
    ]);
    const report = await readStatus(stateDir, [], NOW);
    const [seven, eight] = report.lastRun?.issues ?? [];
    expect(seven).toMatchObject({
      issue: 7,
      outcome: 'resolved',
      sessions: 4,
      bestOf: { n: 3, ran: 3, winner: 2 },
    });
    // The first claim's 0.25, then three attempts and the judge: 0.25 × 3 + 0.125.
    expect(seven?.costUsd).toBe(1.125);
    // An ordinary claim has no best-of-N, also in `status --json`.
    expect(eight).toMatchObject({ issue: 8, sessions: 1 });
    expect(eight).not.toHaveProperty('bestOf');

    const text = renderStatus(report, NOW);
    expect(text).toContain(
      '#7 resolved $1.13 2m 00s (best of 3: attempt 2 chosen; 4 sessions) https://github.test/o/r/pull/9',
    );
    expect(text).toMatch(/#8 verify_failed \$0\.25 1m 00s verify failed\n/);
  });

  it('says none chosen when no attempt passed, and how many ran when attempts.max_usd stopped the rest', async () => {
    const stateDir = await ledgerOf([
      attempts(5, { attempts: [{ attempt: 1, outcome: 'verify_failed', costUsd: 0.25 }] }),
      outcome(5, {}),
    ]);
    const report = await readStatus(stateDir, [], NOW);
    expect(report.lastRun?.issues[0]).toMatchObject({ sessions: 1, bestOf: { n: 3, ran: 1 } });
    expect(renderStatus(report, NOW)).toContain(
      '#5 verify_failed $0.25 1m 00s (best of 3 (1 ran): none chosen) verify failed',
    );
  });

  it('ignores a malformed attempts line (a ledger is only a file)', async () => {
    const stateDir = await ledgerOf([attempts(6, { n: 'three' }), outcome(6, {})]);
    const report = await readStatus(stateDir, [], NOW);
    expect(report.lastRun?.issues[0]).toMatchObject({ issue: 6, sessions: 1 });
    expect(report.lastRun?.issues[0]).not.toHaveProperty('bestOf');
  });
});
