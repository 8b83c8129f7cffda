import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../../src/emulators/anthropic/index.js';
import { readLedger } from '../../src/session/ledger.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { useRunFixture } from './run-fixture.js';

const run = useRunFixture({ 'notes.txt': 'start\n' });

const member = (title: string) => ({
  title,
  body: 'please',
  author: 'octocat',
  authorAssociation: 'MEMBER' as const,
  labels: ['issueloop'],
});

const common = ['--repo', 'octo-org/widgets', '--set', 'log_level=warn'];
const UNTIL = /until \d{4}-\d\d-\d\d 00:00 UTC/;

describe('issueloop run with spend caps (budget.daily_usd, budget.monthly_usd)', () => {
  it('run --dry-run shows what is left in each window, and writes nothing', async () => {
    run.github.addIssue(member('First'));
    const { env } = await run.start(() => reply.text('never asked'));
    const result = await runInProcess(['run', '--dry-run', ...common, '--set', 'budget.monthly_usd=300'], {
      cwd: run.fx.checkout,
      env,
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    const at = lines.indexOf('spend caps (shared by every runner on this claim store):');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('  today: no cap ($0 spent, $0 reserved)');
    expect(lines[at + 2]).toMatch(
      /^ {2}monthly cap \$300: \$300 left \(\$0 spent, \$0 reserved\) until \d{4}-\d\d-01 00:00 UTC$/,
    );
    expect(lines[at + 2]).toMatch(UNTIL);
    await expect(readFile(join(run.fx.checkout, '.issueloop', 'spend.json'))).rejects.toThrow(/ENOENT/);
  });

  it('a run that reaches the daily cap stops claiming, exits 0 and says which cap and when it reopens', async () => {
    run.github.addIssue(member('First'));
    run.github.addIssue(member('Second'));
    const { env } = await run.start(() => reply.text('Nothing to change here.'));
    const caps = ['--set', 'session.max_usd=0.002', '--set', 'budget.daily_usd=0.003', '--set', 'workers=1'];
    const result = await runInProcess(['run', ...common, ...caps], { cwd: run.fx.checkout, env });
    expect(result.code).toBe(0);
    const [headline, detail] = result.stdout.split('\n');
    expect(headline).toMatch(/^issueloop run: spend cap reached: no new claims after \d+ round\(s\)$/);
    expect(detail).toMatch(
      /^daily cap \$0\.003 reached \(\$0\.\d+ spent, \$0 reserved\); the window reopens at \d{4}-\d\d-\d\d 00:00 UTC, in \d+h \d\dm$/,
    );
    const ledgerFile = /^ledger: (.+)$/m.exec(result.stdout)?.[1] ?? '';
    const { events } = await readLedger(ledgerFile);
    expect(events.find((e) => e.type === 'run_end')).toMatchObject({ stop: 'budget', stopDetail: detail });
    // One session ran; the second issue was never claimed.
    expect(result.stdout.split('\n').filter((line) => line.startsWith('#'))).toEqual([
      expect.stringMatching(/^#1 +no_changes /),
    ]);
    const stored = JSON.parse(await readFile(join(run.fx.checkout, '.issueloop', 'spend.json'), 'utf8'));
    const day = Object.entries(stored.windows).find(([key]) => key.startsWith('day:'))?.[1] as {
      spent: number;
      reservations: object;
    };
    expect(day.spent).toBeGreaterThan(0);
    expect(day.reservations).toEqual({});
  });

  it('newcomer: a daily cap below session.max_usd exits 2 before anything is claimed, with the fix', async () => {
    run.github.addIssue(member('First'));
    const { env, anthropic } = await run.start(() => reply.text('never asked'));
    const result = await runInProcess(['run', ...common, '--set', 'budget.daily_usd=1'], {
      cwd: run.fx.checkout,
      env,
    });
    expect(result).toMatchObject({
      code: 2,
      stderr:
        'issueloop: budget.daily_usd ($1) is below session.max_usd ($5), which each session reserves before it is claimed: no session would ever start. Raise budget.daily_usd or lower session.max_usd.\n',
    });
    expect(anthropic.requests.filter((r) => r.path.includes('/messages'))).toEqual([]);
  });
});
