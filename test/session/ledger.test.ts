import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/core/random.js';
import { createRedactor } from '../../src/core/redact.js';
import { latestLedger, newRunId, openLedger, readLedger } from '../../src/session/ledger.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createMemoryLog } from '../helpers/memory-log.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'issueloop-ledger-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ledger', () => {
  it('appends one redacted JSON line per event, in call order, under runs/<run-id>.jsonl', async () => {
    const clock = new FakeClock();
    const secret = 'my-very-secret-value';
    const ledger = await openLedger({ stateDir: dir, runId: 'r1', clock, redact: createRedactor([secret]) });
    const writes = Array.from({ length: 50 }, (_, i) =>
      ledger.append('claim', {
        issue: i,
        note: i === 7 ? `token ${secret} and ghp_abcdefghijklmnopqrstuvwxyz0123` : 'x',
      }),
    );
    await Promise.all(writes);
    expect(ledger.file).toBe(join(dir, 'runs', 'r1.jsonl'));
    const text = await readFile(ledger.file, 'utf8');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('ghp_');
    const { events, skipped } = await readLedger(ledger.file);
    expect(skipped).toBe(0);
    expect(events.map((e) => e.issue)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(events[0]).toMatchObject({ ts: '2026-11-21T12:00:00.000Z', run: 'r1', type: 'claim' });
  });

  it('a torn last line (a crash mid-write) is skipped and counted, the rest still reads', async () => {
    const ledger = await openLedger({ stateDir: dir, runId: 'r2', clock: new FakeClock(), redact: (s) => s });
    await ledger.append('session', { issue: 1 });
    await appendFile(ledger.file, '{"ts":"2026-11-21T12:00:01.000Z","type":"outc');
    expect(await readLedger(ledger.file)).toMatchObject({ events: [{ type: 'session' }], skipped: 1 });
  });

  it('regression: a line that cannot be written is logged and counted, never an unhandled rejection', async () => {
    const log = createMemoryLog();
    const ledger = await openLedger({
      stateDir: dir,
      runId: 'r3',
      clock: new FakeClock(),
      redact: (s) => s,
      log,
    });
    await rm(join(dir, 'runs'), { recursive: true });
    // Not awaited, as the session does: a rejection here would fail the test run.
    void ledger.append('model_call', { issue: 1 });
    await ledger.append('verify', { issue: 1 });
    await ledger.flush();
    expect(ledger.failures()).toBe(2);
    expect(log.entries.filter((e) => e.level === 'warn').map((e) => e.msg)).toEqual([
      'could not write model_call to the ledger',
      'could not write verify to the ledger',
    ]);
  });

  it('run ids sort by start time; latestLedger finds the newest run', async () => {
    const clock = new FakeClock();
    const random = createSeededRandom(1);
    const first = newRunId(clock, random);
    clock.advance(1_000);
    const second = newRunId(clock, random);
    expect(first).toMatch(/^20261121T120000Z-[0-9a-f]{4}$/);
    expect([second, first].sort()).toEqual([first, second]);
    expect(await latestLedger(dir)).toBeUndefined();
    for (const id of [second, first])
      await (await openLedger({ stateDir: dir, runId: id, clock, redact: (s) => s })).append('start');
    expect(await latestLedger(dir)).toBe(join(dir, 'runs', `${second}.jsonl`));
  });
});
