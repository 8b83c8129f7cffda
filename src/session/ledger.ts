import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Log } from '../core/logger.js';
import type { Random } from '../core/random.js';
import type { Redactor } from '../core/redact.js';
import { createSerialQueue } from '../core/serial-queue.js';
import { withStateAccess } from '../core/state-access.js';
import { ensureStateDir } from '../core/state-dir.js';

export const RUNS_DIR = 'runs';

export interface LedgerEvent {
  ts: string;
  run: string;
  type: string;
  [field: string]: unknown;
}

/**
 * One JSON Lines file per run (`<state_dir>/runs/<run-id>.jsonl`): every claim, session, outcome,
 * retry, failover, compaction, cost and board move, redacted. Appends are serialised in call order;
 * a line is one `appendFile`, so a crash loses at most the line being written, which readers skip.
 */
export interface Ledger {
  readonly runId: string;
  readonly file: string;
  /**
   * Never rejects: the ledger is a record of the work, not the work. A line that cannot be written
   * (disk full, directory removed) is logged and counted, and the run goes on.
   */
  append(type: string, fields?: Record<string, unknown>): Promise<void>;
  /** Lines that could not be written. */
  failures(): number;
  /** Waits for every append made so far. */
  flush(): Promise<void>;
}

/** `20261121T120000Z-3f9a`: sorts by start time, unique enough for runs started in the same second. */
export function newRunId(clock: Pick<Clock, 'now'>, random: Random): string {
  const stamp = new Date(clock.now())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const suffix = Math.floor(random() * 0x10000)
    .toString(16)
    .padStart(4, '0');
  return `${stamp}-${suffix}`;
}

export async function openLedger(options: {
  stateDir: string;
  runId: string;
  clock: Pick<Clock, 'now'>;
  redact: Redactor;
  log?: Log;
}): Promise<Ledger> {
  await ensureStateDir(options.stateDir);
  const dir = join(options.stateDir, RUNS_DIR);
  await withStateAccess({ path: dir, action: 'write' }, () => mkdir(dir, { recursive: true }));
  const file = join(dir, `${options.runId}.jsonl`);
  const serial = createSerialQueue();
  let failed = 0;
  return {
    runId: options.runId,
    file,
    append(type, fields = {}) {
      const event = { ts: new Date(options.clock.now()).toISOString(), run: options.runId, type, ...fields };
      // Redacted as a whole line, so no field (nested or escaped) can carry a secret.
      const line = `${options.redact(JSON.stringify(event))}\n`;
      return serial(() => appendFile(file, line, 'utf8')).catch((err: unknown) => {
        failed += 1;
        options.log?.warn(
          { file, type, err: options.redact(String(err)) },
          `could not write ${type} to the ledger`,
        );
      });
    },
    failures: () => failed,
    flush: () => serial(async () => {}),
  };
}

export interface LedgerContents {
  events: LedgerEvent[];
  /** Lines that did not parse (a torn last line after a crash). */
  skipped: number;
}

export async function readLedger(file: string): Promise<LedgerContents> {
  const text = await readFile(file, 'utf8');
  const events: LedgerEvent[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === 'object' && parsed !== null && 'type' in parsed)
        events.push(parsed as LedgerEvent);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { events, skipped };
}

/** The newest run's ledger file, or undefined when no run has written one. */
export async function latestLedger(stateDir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(join(stateDir, RUNS_DIR));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const runs = names.filter((name) => name.endsWith('.jsonl')).sort();
  const newest = runs.at(-1);
  return newest === undefined ? undefined : join(stateDir, RUNS_DIR, newest);
}
