import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./fixtures/claim-worker.mjs', import.meta.url));

export interface LogEntry {
  type: 'grant' | 'refused' | 'releasing' | 'released';
  issue: number;
  token: number;
  /** Microseconds on the machine-wide monotonic clock. */
  at?: number;
}

export interface Held {
  owner: string;
  issue: number;
  token: number;
  start: number;
  /** Undefined when the holder died before it started releasing. */
  end?: number;
  released: boolean;
}

export interface Contender {
  owner: string;
  index: number;
  child: ChildProcess;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export function startContenders(options: {
  dir: string;
  file: string;
  count: number;
  issues: number;
  cycles: number;
  ttlMs: number;
  /** Extra environment for some contenders (see the worker's HOLD_UNTIL_TOLD and DIE_IN_TRANSACTION). */
  envFor?: (index: number) => Record<string, string>;
}): Contender[] {
  return Array.from({ length: options.count }, (_, i) => {
    const owner = `worker-${i + 1}`;
    const args = [
      WORKER,
      options.file,
      join(options.dir, `${owner}.jsonl`),
      owner,
      String(options.issues),
      String(options.cycles),
      String(options.ttlMs),
      String(1000 + i),
    ];
    const child = spawn(process.execPath, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.envFor?.(i) },
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
      (resolve) => {
        child.on('close', (code, signal) => resolve({ code, signal, stderr }));
      },
    );
    return { owner, index: i, child, exit };
  });
}

/** Every lease a contender logged, with the interval it held it; a torn last line is ignored. */
export async function readHeld(dir: string, owners: readonly string[]): Promise<Held[]> {
  const held: Held[] = [];
  for (const owner of owners) {
    const text = await readFile(join(dir, `${owner}.jsonl`), 'utf8').catch(() => '');
    const byToken = new Map<number, Held>();
    for (const line of text.split('\n')) {
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
      } catch {
        continue;
      }
      if (entry.type === 'grant') {
        const h: Held = {
          owner,
          issue: entry.issue,
          token: entry.token,
          start: entry.at ?? 0,
          released: false,
        };
        byToken.set(entry.token, h);
        held.push(h);
      } else {
        const h = byToken.get(entry.token);
        if (!h) continue;
        if (entry.type === 'releasing') h.end = entry.at;
        else h.released = true;
      }
    }
  }
  return held;
}

/** Pairs of leases of one issue whose held intervals overlap; an unfinished lease runs to infinity. */
export function overlaps(held: readonly Held[]): Array<[Held, Held]> {
  const found: Array<[Held, Held]> = [];
  const byIssue = Map.groupBy(held, (h) => h.issue);
  for (const leases of byIssue.values()) {
    const sorted = [...leases].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const previous = sorted[i - 1] as Held;
      const current = sorted[i] as Held;
      if ((previous.end ?? Number.POSITIVE_INFINITY) > current.start) found.push([previous, current]);
    }
  }
  return found;
}

/** Leases of one issue, in the order they were held, whose token did not grow. */
export function tokenRegressions(held: readonly Held[]): Array<[Held, Held]> {
  const found: Array<[Held, Held]> = [];
  for (const leases of Map.groupBy(held, (h) => h.issue).values()) {
    const sorted = [...leases].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const previous = sorted[i - 1] as Held;
      const current = sorted[i] as Held;
      if (current.token <= previous.token) found.push([previous, current]);
    }
  }
  return found;
}

/**
 * Lets a contender started with HOLD_UNTIL_TOLD go on after each of its first `killAt - 1` grants and
 * kills it (SIGKILL) at grant `killAt`, while it holds that lease: no timing involved.
 */
export function killAtGrant(contender: Contender, killAt: number): void {
  let grants = 0;
  onLines(contender, (line) => {
    if (line !== 'grant') return;
    if (++grants >= killAt) contender.child.kill('SIGKILL');
    else contender.child.stdin?.write('go\n');
  });
}

/** Lines a contender prints on stdout, as they come. */
function onLines(contender: Contender, onLine: (line: string) => void): void {
  let partial = '';
  contender.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
}

/**
 * Starts the cycles of contenders run with START_TOGETHER once every one of them is loaded and
 * connected ("ready"), so that they really run at the same time.
 */
export function startTogether(contenders: readonly Contender[]): void {
  let ready = 0;
  for (const c of contenders) {
    c.child.stdin?.on('error', () => undefined);
    onLines(c, (line) => {
      if (line !== 'ready' || ++ready < contenders.length) return;
      for (const each of contenders) each.child.stdin?.write('start\n');
    });
  }
}

/** How often each contender found an issue held by another: proof that the contenders met. */
export async function readRefusals(dir: string, owners: readonly string[]): Promise<Map<string, number>> {
  const refusals = new Map<string, number>();
  for (const owner of owners) {
    const text = await readFile(join(dir, `${owner}.jsonl`), 'utf8').catch(() => '');
    const lines = text.split('\n').filter((line) => line.includes('"type":"refused"'));
    const byOthers = lines.filter((line) => !line.includes(`"holder":${JSON.stringify(owner)}`));
    refusals.set(owner, byOthers.length);
  }
  return refusals;
}
