import { IssueloopError } from '../core/errors.js';
import {
  capOf,
  fromMicros,
  type SpendCaps,
  toMicros,
  WINDOW_KINDS,
  type WindowState,
  windowAt,
  windowEnd,
  windowState,
} from './spend-windows.js';
import { createMemoryStateBackend, type StateBackend } from './state-backend.js';

/**
 * What every run and runner sharing a claim store has spent, per UTC day and month, and what the
 * sessions still running may yet spend. Before a claim, a run **reserves** the session's cap
 * (`session.max_usd`): granted only when, for each capped window, spent + reserved + the new
 * reservation stays within the cap. When the session ends its reservation is replaced by its actual
 * cost, charged to the windows the reservation was taken in. A runner that crashes never settles:
 * its reservation lapses at its expiry, so it holds the budget for a while, never forever.
 *
 * Memory, file (spend.json, claims-style locking) and Redis (one Lua script per operation) keep it;
 * all pass test/claims/spend-ledger-contract.ts.
 */
export interface Reservation {
  /** Unique per claim: the run's owner, the issue and the lease's token. */
  id: string;
  usd: number;
  /** The windows it was taken in, which its actual cost is charged to. */
  keys: string[];
  /** ISO 8601: when it stops holding the budget if nobody settles it. */
  expires_at: string;
}

export type ReserveResult = { ok: true; reservation: Reservation } | { ok: false; full: WindowState };

export interface SpendLedger {
  readonly caps: SpendCaps;
  /** Holds `usd` for `ttlMs` in today's and this month's windows, or names the capped window it does not fit. */
  reserve(id: string, usd: number, ttlMs: number): Promise<ReserveResult>;
  /**
   * Keeps a running session's reservation holding for `ttlMs` from now (never shorter than it held),
   * in the windows it was taken in; one that lapsed meanwhile is held again: its session still spends.
   */
  extend(reservation: Reservation, ttlMs: number): Promise<Reservation>;
  /** Replaces the reservation by what the session cost (0: it never ran). */
  settle(reservation: Reservation, usd: number): Promise<void>;
  /** Today's and this month's windows, day first. */
  windows(): Promise<WindowState[]>;
  close(): Promise<void>;
}

/** The state memory and file keep: money in micro-dollars, times in epoch ms. */
export interface SpendFile {
  version: 1;
  windows: Record<
    string,
    { spent: number; reservations: Record<string, { amount: number; expires: number }> }
  >;
}

export const emptySpendFile = (): SpendFile => ({ version: 1, windows: {} });

/** A window is forgotten a day after it ended (a late settle still finds it). */
export const KEEP_AFTER_END_MS = 86_400_000;

function prune(state: SpendFile, now: number): void {
  for (const [key, window] of Object.entries(state.windows)) {
    if (windowEnd(key) + KEEP_AFTER_END_MS <= now) {
      delete state.windows[key];
      continue;
    }
    for (const [id, r] of Object.entries(window.reservations))
      if (r.expires <= now) delete window.reservations[id];
  }
}

/** The window `key` of `state`, made empty when it is not there yet. */
function windowOf(state: SpendFile, key: string): SpendFile['windows'][string] {
  const window = state.windows[key] ?? { spent: 0, reservations: {} };
  state.windows[key] = window;
  return window;
}

const reservedIn = (window: SpendFile['windows'][string] | undefined) =>
  Object.values(window?.reservations ?? {}).reduce((sum, r) => sum + r.amount, 0);

function stateOf(state: SpendFile, caps: SpendCaps, now: number): WindowState[] {
  return WINDOW_KINDS.map((kind) => {
    const { key } = windowAt(kind, now);
    const window = state.windows[key];
    return windowState(kind, key, caps, window?.spent ?? 0, reservedIn(window));
  });
}

export interface SpendTransaction<T> {
  next?: SpendFile;
  result: T;
}

/** The rules memory and file share; Redis runs the same ones in Lua (spend-redis.ts). */
export const spendRules = {
  reserve(
    state: SpendFile,
    request: { id: string; usd: number; ttlMs: number; now: number; caps: SpendCaps },
  ): SpendTransaction<ReserveResult> {
    const { now, caps } = request;
    prune(state, now);
    const amount = toMicros(request.usd);
    for (const window of stateOf(state, caps, now)) {
      const cap = capOf(caps, window.kind);
      if (cap === undefined) continue;
      const used = toMicros(window.spent_usd) + toMicros(window.reserved_usd);
      if (used + amount > toMicros(cap)) return { next: state, result: { ok: false, full: window } };
    }
    const expires = now + request.ttlMs;
    const keys = WINDOW_KINDS.map((kind) => windowAt(kind, now).key);
    for (const key of keys) {
      const window = windowOf(state, key);
      window.reservations[request.id] = { amount, expires };
    }
    const reservation = {
      id: request.id,
      usd: fromMicros(amount),
      keys,
      expires_at: new Date(expires).toISOString(),
    };
    return { next: state, result: { ok: true, reservation } };
  },
  extend(
    state: SpendFile,
    reservation: Reservation,
    ttlMs: number,
    now: number,
  ): SpendTransaction<Reservation> {
    const expires = Math.max(now + ttlMs, Date.parse(reservation.expires_at));
    for (const key of reservation.keys) {
      const window = windowOf(state, key);
      const held = window.reservations[reservation.id];
      window.reservations[reservation.id] = {
        amount: held?.amount ?? toMicros(reservation.usd),
        expires: Math.max(expires, held?.expires ?? 0),
      };
    }
    prune(state, now);
    return { next: state, result: { ...reservation, expires_at: new Date(expires).toISOString() } };
  },
  settle(state: SpendFile, reservation: Reservation, usd: number, now: number): SpendTransaction<void> {
    for (const key of reservation.keys) {
      const window = windowOf(state, key);
      delete window.reservations[reservation.id];
      window.spent += toMicros(usd);
    }
    prune(state, now);
    return { next: state, result: undefined };
  },
  windows(state: SpendFile, caps: SpendCaps, now: number): WindowState[] {
    const copy = structuredClone(state);
    prune(copy, now);
    return stateOf(copy, caps, now);
  },
};

/** Where memory and file keep the spend windows (state-backend.ts). */
export type SpendBackend = StateBackend<SpendFile>;

/** Checks every argument the same way in every store. */
export function checkReserve(id: string, usd: number, ttlMs: number): void {
  const bad = (why: string) => new IssueloopError('invalid_argument', why);
  if (id.trim() === '') throw bad('a reservation needs an id');
  if (!(Number.isFinite(usd) && usd > 0)) throw bad(`a reservation is a positive amount, got ${usd}`);
  if (!(Number.isSafeInteger(ttlMs) && ttlMs > 0)) throw bad(`a reservation's TTL is positive, got ${ttlMs}`);
}

export function createSpendLedger(
  backend: SpendBackend,
  options: { caps: SpendCaps; clock: { now(): number } },
): SpendLedger {
  const { caps, clock } = options;
  return {
    caps,
    async reserve(id, usd, ttlMs) {
      checkReserve(id, usd, ttlMs);
      return backend.transact((s) => spendRules.reserve(s, { id, usd, ttlMs, now: clock.now(), caps }));
    },
    async extend(reservation, ttlMs) {
      checkReserve(reservation.id, reservation.usd, ttlMs);
      return backend.transact((s) => spendRules.extend(s, reservation, ttlMs, clock.now()));
    },
    async settle(reservation, usd) {
      return backend.transact((s) => spendRules.settle(s, reservation, Math.max(0, usd), clock.now()));
    },
    async windows() {
      return spendRules.windows(await backend.read(), caps, clock.now());
    },
    close: async () => undefined,
  };
}

export function createMemorySpendBackend(initial: SpendFile = emptySpendFile()): SpendBackend {
  return createMemoryStateBackend(initial);
}

/** Spend kept in this process only: tests and a memory claim store. */
export function createMemorySpendLedger(options: { caps: SpendCaps; clock: { now(): number } }): SpendLedger {
  return createSpendLedger(createMemorySpendBackend(), options);
}
