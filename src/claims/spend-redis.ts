import { openRedisConnection } from './redis-connection.js';
import {
  checkReserve,
  KEEP_AFTER_END_MS,
  type Reservation,
  type ReserveResult,
  type SpendLedger,
} from './spend-ledger.js';
import {
  capOf,
  fromMicros,
  type SpendCaps,
  toMicros,
  WINDOW_KINDS,
  windowAt,
  windowEnd,
  windowState,
} from './spend-windows.js';

/**
 * The spend ledger of a Redis claim store, shared by every runner that reaches the server: one hash
 * per window under the repository's prefix (`issueloop:<owner>/<repo>:spend:day:2026-11-26`), with
 * `spent` and one `r:<id>` field per reservation (`<micro-dollars>:<expires ms>`). Reserving and
 * settling are each one Lua script, so two runners cannot both take the last dollars of a cap. Each
 * hash expires a day after its window ends, by the callers' clock (a relative PEXPIRE, as leases do).
 */

/** `used(key, now, prune)`: spent and live reservations of a window; `prune` drops expired ones. */
const USED = `
local function used(key, now, prune)
  local h = redis.call('HGETALL', key)
  local spent, reserved = 0, 0
  for i = 1, #h, 2 do
    local f, v = h[i], h[i + 1]
    if f == 'spent' then
      spent = tonumber(v)
    elseif string.sub(f, 1, 2) == 'r:' then
      local sep = string.find(v, ':', 1, true)
      local amount, expires = tonumber(string.sub(v, 1, sep - 1)), tonumber(string.sub(v, sep + 1))
      if expires > now then reserved = reserved + amount elseif prune then redis.call('HDEL', key, f) end
    end
  end
  return spent, reserved
end
`;

/**
 * KEYS: day, month. ARGV: now, id, amount, expires, day cap, month cap (-1: none), day key's and
 * month key's TTL (ms). → {1} | {0, window index, spent, reserved}
 */
const RESERVE = `${USED}
local now = tonumber(ARGV[1])
local amount = tonumber(ARGV[3])
for i = 1, 2 do
  local cap = tonumber(ARGV[4 + i])
  local spent, reserved = used(KEYS[i], now, true)
  if cap >= 0 and spent + reserved + amount > cap then return {0, i, spent, reserved} end
end
for i = 1, 2 do
  redis.call('HSET', KEYS[i], 'r:' .. ARGV[2], ARGV[3] .. ':' .. ARGV[4])
  redis.call('PEXPIRE', KEYS[i], ARGV[6 + i])
end
return {1}
`;

/** KEYS: the reservation's windows. ARGV: id, actual cost, then each key's TTL (ms). */
const SETTLE = `
for i = 1, #KEYS do
  redis.call('HDEL', KEYS[i], 'r:' .. ARGV[1])
  redis.call('HINCRBY', KEYS[i], 'spent', ARGV[2])
  redis.call('PEXPIRE', KEYS[i], ARGV[2 + i])
end
return 1
`;

/**
 * KEYS: the reservation's windows. ARGV: id, amount, expires, then each key's TTL (ms). A reservation
 * that lapsed is held again; one that holds longer already keeps its expiry.
 */
const EXTEND = `
for i = 1, #KEYS do
  local field = 'r:' .. ARGV[1]
  local held = redis.call('HGET', KEYS[i], field)
  local expires = tonumber(ARGV[3])
  if held then
    local sep = string.find(held, ':', 1, true)
    expires = math.max(expires, tonumber(string.sub(held, sep + 1)))
  end
  redis.call('HSET', KEYS[i], field, ARGV[2] .. ':' .. string.format('%d', expires))
  redis.call('PEXPIRE', KEYS[i], ARGV[3 + i])
end
return 1
`;

/** KEYS: day, month. ARGV: now. → {spent, reserved, spent, reserved}; writes nothing (`--dry-run`). */
const READ = `${USED}
local out = {}
for i = 1, 2 do
  local spent, reserved = used(KEYS[i], tonumber(ARGV[1]), false)
  table.insert(out, spent)
  table.insert(out, reserved)
end
return out
`;

export interface RedisSpendLedgerOptions {
  url: string;
  repo: string;
  caps: SpendCaps;
  clock: { now(): number };
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
}

export function createRedisSpendLedger(options: RedisSpendLedgerOptions): SpendLedger {
  const { caps, clock } = options;
  const connection = openRedisConnection(options, () => undefined);
  const key = (window: string) => `${connection.prefix}spend:${window}`;
  // Relative to the callers' clock, which judges everything else, not to Redis's own.
  const expiry = (window: string, now: number) =>
    String(Math.max(1, windowEnd(window) + KEEP_AFTER_END_MS - now));
  const current = (now: number) => WINDOW_KINDS.map((kind) => windowAt(kind, now).key);

  return {
    caps,
    async reserve(id, usd, ttlMs) {
      checkReserve(id, usd, ttlMs);
      const now = clock.now();
      const windows = current(now);
      const amount = toMicros(usd);
      const capArgs = WINDOW_KINDS.map((kind) => {
        const cap = capOf(caps, kind);
        return cap === undefined ? '-1' : String(toMicros(cap));
      });
      const answer = (await connection.call('reserve a session’s budget', (c) =>
        c.eval(
          RESERVE,
          2,
          ...windows.map(key),
          now,
          id,
          amount,
          now + ttlMs,
          ...capArgs,
          ...windows.map((w) => expiry(w, now)),
        ),
      )) as number[];
      if (answer[0] !== 1) {
        const index = Number(answer[1]) - 1;
        const kind = WINDOW_KINDS[index] ?? 'day';
        const full = windowState(kind, windows[index] ?? '', caps, Number(answer[2]), Number(answer[3]));
        return { ok: false, full } satisfies ReserveResult;
      }
      const reservation: Reservation = {
        id,
        usd: fromMicros(amount),
        keys: windows,
        expires_at: new Date(now + ttlMs).toISOString(),
      };
      return { ok: true, reservation };
    },
    async extend(reservation, ttlMs) {
      checkReserve(reservation.id, reservation.usd, ttlMs);
      const keys = reservation.keys;
      const now = clock.now();
      const expires = Math.max(now + ttlMs, Date.parse(reservation.expires_at));
      await connection.call('renew a session’s reservation', (c) =>
        c.eval(
          EXTEND,
          keys.length,
          ...keys.map(key),
          reservation.id,
          toMicros(reservation.usd),
          expires,
          ...keys.map((w) => expiry(w, now)),
        ),
      );
      return { ...reservation, expires_at: new Date(expires).toISOString() };
    },
    async settle(reservation, usd) {
      const keys = reservation.keys;
      const now = clock.now();
      await connection.call('record a session’s cost', (c) =>
        c.eval(
          SETTLE,
          keys.length,
          ...keys.map(key),
          reservation.id,
          toMicros(Math.max(0, usd)),
          ...keys.map((w) => expiry(w, now)),
        ),
      );
    },
    async windows() {
      const now = clock.now();
      const windows = current(now);
      const answer = (await connection.call('read the spend windows', (c) =>
        c.eval(READ, 2, ...windows.map(key), now),
      )) as number[];
      return WINDOW_KINDS.map((kind, i) =>
        windowState(kind, windows[i] ?? '', caps, Number(answer[2 * i]), Number(answer[2 * i + 1])),
      );
    },
    close: connection.close,
  };
}
