import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSpendLedger } from '../../src/claims/open-claim-store.js';
import { createFileSpendBackend, parseSpendFile } from '../../src/claims/spend-file.js';
import { createSpendLedger } from '../../src/claims/spend-ledger.js';
import { CorruptStateError, UsageError } from '../../src/core/errors.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { describeSpendLedgerContract } from './spend-ledger-contract.js';
import { createTempStateDirs } from './temp-state-dirs.js';

const temp = createTempStateDirs();
afterAll(temp.cleanup);

describeSpendLedgerContract('file', async (caps, clock) => {
  const file = join(await temp.make(), 'spend.json');
  return {
    ledger: createSpendLedger(createFileSpendBackend(file), { caps, clock }),
    // Another backend on the same file: its own lock handle, as another process would have.
    share: () => createSpendLedger(createFileSpendBackend(file), { caps, clock }),
  };
});

describe('file spend ledger', () => {
  it('keeps its windows in spend.json in the state directory, in whole micro-dollars', async () => {
    const dir = await temp.make();
    const file = join(dir, 'spend.json');
    const clock = new FakeClock(Date.UTC(2026, 10, 26, 9));
    const ledger = createSpendLedger(createFileSpendBackend(file), { caps: { daily_usd: 20 }, clock });
    const result = await ledger.reserve('host:1#7#3', 5, 60_000);
    if (!result.ok) throw new Error('expected a reservation');
    await ledger.settle(result.reservation, 0.1 + 0.2);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored.windows['day:2026-11-26']).toEqual({ spent: 300_000, reservations: {} });
    expect(stored.windows['month:2026-11']).toEqual({ spent: 300_000, reservations: {} });
  });

  it('names an unreadable spend file and how to fix it, and leaves it untouched', async () => {
    const dir = await temp.make();
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'spend.json');
    await writeFile(file, '{"version":1,"windows":{"day:2026-11-26":{"spent":-1,"reservations":{}}}}');
    const ledger = createSpendLedger(createFileSpendBackend(file), {
      caps: { daily_usd: 20 },
      clock: new FakeClock(),
    });
    await expect(ledger.reserve('a', 1, 60_000)).rejects.toThrow(CorruptStateError);
    await expect(ledger.windows()).rejects.toThrow(
      /spend\.json is unreadable: not a spend file: .*Delete it/,
    );
    expect(() => parseSpendFile(file, '{')).toThrow(/invalid JSON/);
    expect(await readFile(file, 'utf8')).toContain('"spent":-1');
  });
});

describe('openSpendLedger', () => {
  const settings = (budget: { daily_usd?: number }, state_dir: string) => ({
    claims: { store: 'file' as const, max_failures: 3 },
    state_dir,
    budget,
  });

  it('opens nothing without a cap, and spend.json in the state directory with one', async () => {
    const dir = await temp.make();
    const clock = new FakeClock(Date.UTC(2026, 10, 26, 9));
    expect(openSpendLedger(settings({}, dir), { cwd: '/', clock })).toBeUndefined();
    const ledger = openSpendLedger(settings({ daily_usd: 20 }, dir), { cwd: '/', clock });
    expect(ledger?.caps).toEqual({ daily_usd: 20 });
    expect((await ledger?.reserve('a', 5, 60_000))?.ok).toBe(true);
    expect(JSON.parse(await readFile(join(dir, 'spend.json'), 'utf8')).windows).toHaveProperty([
      'day:2026-11-26',
    ]);
  });

  it('regression: a Redis claim store without its repository is a usage error, not spend kept in a local file', async () => {
    const dir = await temp.make();
    const clock = new FakeClock(Date.UTC(2026, 10, 26, 9));
    const redis = {
      claims: { store: 'redis' as const, max_failures: 3, redis_url: 'redis://127.0.0.1:6390' },
      state_dir: dir,
      budget: { daily_usd: 20 },
    };
    expect(() => openSpendLedger(redis, { cwd: '/', clock })).toThrow(UsageError);
    expect(() => openSpendLedger(redis, { cwd: '/', clock })).toThrow('pass --repo owner/name');
    const ledger = openSpendLedger({ ...redis, repo: 'octo-org/widgets' }, { cwd: '/', clock });
    expect(ledger?.caps).toEqual({ daily_usd: 20 });
    await ledger?.close();
  });
});
