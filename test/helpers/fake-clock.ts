import type { Clock } from '../../src/core/clock.js';

interface PendingSleep {
  until: number;
  resolve: () => void;
}

/**
 * A clock that never really sleeps. In `auto` mode every sleep advances time at once; in manual
 * mode sleeps stay pending until `advance()` passes their deadline, so a test can abort mid-wait.
 * Aborts reject with an AbortError exactly as `timers/promises` does.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private current: number;
  private pending: PendingSleep[] = [];

  constructor(
    start = Date.UTC(2026, 10, 21, 12, 0, 0),
    private auto = true,
  ) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(abortError());
    if (this.auto) {
      this.current += ms;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry: PendingSleep = { until: this.current + ms, resolve };
      this.pending.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          this.pending = this.pending.filter((p) => p !== entry);
          reject(abortError());
        },
        { once: true },
      );
    });
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** From now on every sleep passes at once (auto mode); the pending ones end now. */
  runFreely(): void {
    this.auto = true;
    const due = this.pending;
    this.pending = [];
    for (const p of due) {
      this.current = Math.max(this.current, p.until);
      p.resolve();
    }
  }

  advance(ms: number): void {
    this.current += ms;
    const due = this.pending.filter((p) => p.until <= this.current);
    this.pending = this.pending.filter((p) => p.until > this.current);
    for (const p of due) p.resolve();
  }
}

function abortError(): Error {
  return new DOMException('The operation was aborted', 'AbortError');
}
