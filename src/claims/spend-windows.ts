import { humanDuration } from '../core/human-duration.js';

/**
 * The calendar windows spend caps are kept in: a UTC day (from 00:00 UTC) and a UTC month (from the
 * 1st). Every store names a window by its key (`day:2026-11-26`, `month:2026-11`), so runners on
 * different hosts agree on which window a dollar belongs to without talking to each other.
 */

export type WindowKind = 'day' | 'month';

export const WINDOW_KINDS: readonly WindowKind[] = ['day', 'month'];

/** `budget.daily_usd` / `budget.monthly_usd`: absent means no cap for that window. */
export interface SpendCaps {
  daily_usd?: number | undefined;
  monthly_usd?: number | undefined;
}

export function capOf(caps: SpendCaps, kind: WindowKind): number | undefined {
  return kind === 'day' ? caps.daily_usd : caps.monthly_usd;
}

export function hasCaps(caps: SpendCaps | undefined): caps is SpendCaps {
  return caps?.daily_usd !== undefined || caps?.monthly_usd !== undefined;
}

/** The window of `kind` that holds `at` (epoch ms): its key and its bounds. */
export function windowAt(kind: WindowKind, at: number): { key: string; start: number; end: number } {
  const d = new Date(at);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  if (kind === 'day') {
    const start = Date.UTC(y, m, d.getUTCDate());
    return { key: `day:${new Date(start).toISOString().slice(0, 10)}`, start, end: start + 86_400_000 };
  }
  const start = Date.UTC(y, m, 1);
  return { key: `month:${new Date(start).toISOString().slice(0, 7)}`, start, end: Date.UTC(y, m + 1, 1) };
}

/** The end of the window a key names (epoch ms); NaN for a key that names none. */
export function windowEnd(key: string): number {
  const day = /^day:(\d{4}-\d{2}-\d{2})$/.exec(key);
  if (day) return Date.parse(`${day[1]}T00:00:00Z`) + 86_400_000;
  const month = /^month:(\d{4})-(\d{2})$/.exec(key);
  if (month) return Date.UTC(Number(month[1]), Number(month[2]), 1);
  return Number.NaN;
}

/** Money is kept in whole micro-dollars, so sums agree exactly in every store (Lua included). */
export const toMicros = (usd: number): number => Math.round(usd * 1_000_000);
export const fromMicros = (micros: number): number => micros / 1_000_000;

/** One window as a run, `--dry-run` and the action see it. */
export interface WindowState {
  kind: WindowKind;
  key: string;
  /** Absent: no cap on this window (its spend is still kept). */
  cap_usd?: number;
  spent_usd: number;
  /** Held by sessions still running (on any runner), each up to its `session.max_usd`. */
  reserved_usd: number;
  /** cap − spent − reserved, never below 0; absent without a cap. */
  left_usd?: number;
  /** ISO 8601: when the next window of this kind begins. */
  reopens_at: string;
}

export function windowState(
  kind: WindowKind,
  key: string,
  caps: SpendCaps,
  spentMicros: number,
  reservedMicros: number,
): WindowState {
  const cap = capOf(caps, kind);
  const spent_usd = fromMicros(spentMicros);
  const reserved_usd = fromMicros(reservedMicros);
  return {
    kind,
    key,
    ...(cap !== undefined
      ? { cap_usd: cap, left_usd: Math.max(0, fromMicros(toMicros(cap) - spentMicros - reservedMicros)) }
      : {}),
    spent_usd,
    reserved_usd,
    reopens_at: new Date(windowEnd(key)).toISOString(),
  };
}

/** $20, $19.40; below a dollar, to the micro-dollar when cents would hide it ($0.003). */
function dollars(usd: number): string {
  if (Number.isInteger(usd)) return `$${usd}`;
  const cents = usd.toFixed(2);
  const exact = Number(usd.toFixed(6));
  return usd < 1 && Number(cents) !== exact ? `$${exact}` : `$${cents}`;
}
const CAP_NAME: Record<WindowKind, string> = { day: 'daily', month: 'monthly' };

/** "2026-11-27 00:00 UTC". */
export const utcMinute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/**
 * "daily cap $20 reached ($19.40 spent, $5 reserved); the window reopens at 2026-11-27 00:00 UTC, in
 * 3h 12m": why a run stopped claiming.
 */
export function describeCapReached(window: WindowState, now: number): string {
  const cap = window.cap_usd ?? 0;
  const reopens = Date.parse(window.reopens_at);
  return (
    `${CAP_NAME[window.kind]} cap ${dollars(cap)} reached (${dollars(window.spent_usd)} spent, ` +
    `${dollars(window.reserved_usd)} reserved); the window reopens at ${utcMinute(window.reopens_at)}, ` +
    `in ${humanDuration(reopens - now)}`
  );
}

/** "daily cap $20: $12.50 left ($7.50 spent, $0 reserved) until 2026-11-27 00:00 UTC": for `--dry-run`. */
export function describeWindow(window: WindowState): string {
  const used = `${dollars(window.spent_usd)} spent, ${dollars(window.reserved_usd)} reserved`;
  if (window.cap_usd === undefined) {
    return `${window.kind === 'day' ? 'today' : 'this month'}: no cap (${used})`;
  }
  return (
    `${CAP_NAME[window.kind]} cap ${dollars(window.cap_usd)}: ${dollars(window.left_usd ?? 0)} left ` +
    `(${used}) until ${utcMinute(window.reopens_at)}`
  );
}
