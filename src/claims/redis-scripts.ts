/**
 * The Redis claim store's transactions, each one Lua script that Redis runs atomically. A lease is a
 * string key set with `SET … NX PX ttl` holding `{token, owner, claimed, expires, ttl}` (times in
 * epoch ms); renew and release compare the fencing token and owner before they `PEXPIRE` (via
 * `SET XX PX`) or `DEL`. Tokens come from `INCR`. Each issue's history is a hash; a set lists the
 * issues the store knows. `now` comes from the caller's clock, so expiry agrees with every other
 * store; Redis's own key expiry removes leases nobody released.
 *
 * Keys are passed in KEYS except in `clear`, which walks the issue set: the store is for a single
 * Redis server (not Redis Cluster).
 */

/** `add_failure(record, at, class, message)`: the same rule as the other stores (last 10 reasons). */
const ADD_FAILURE = `
local function add_failure(record, at, class, message)
  redis.call('HINCRBY', record, 'failure_count', 1)
  redis.call('HSET', record, 'last_failure_at', at)
  local raw = redis.call('HGET', record, 'failure_reasons')
  local reasons = {}
  if raw then reasons = cjson.decode(raw) end
  table.insert(reasons, {at = at, error_class = class, message = message})
  while #reasons > 10 do table.remove(reasons, 1) end
  redis.call('HSET', record, 'failure_reasons', cjson.encode(reasons))
end
`;

/**
 * `invalid(lease, now, max, skew)`: the lease reaches further ahead than any store grants (a TTL above
 * `max`, or an expiry beyond now + max + skew): damaged or forged, so it counts as expired. The same
 * rule as lease-limits.ts.
 */
const INVALID = `
local function invalid(lease, now, max, skew)
  return tonumber(lease.ttl) > max or tonumber(lease.expires) - now > max + skew
end
local function is_live(lease, now, max, skew)
  return tonumber(lease.expires) > now and not invalid(lease, now, max, skew)
end
`;

/** `staleness(raw, token, owner, now, max, skew)`: nil when the stored lease is this live one, else why not. */
const STALENESS = `${INVALID}
local function staleness(raw, token, owner, now, max, skew)
  if not raw then return 'none' end
  local lease = cjson.decode(raw)
  if tostring(lease.token) ~= token or lease.owner ~= owner then return 'replaced' end
  if invalid(lease, now, max, skew) then return 'invalid' end
  if tonumber(lease.expires) <= now then return 'expired' end
  return nil
end
`;

export interface RedisScript {
  numberOfKeys: number;
  lua: string;
}

export const REDIS_SCRIPTS = {
  /**
   * KEYS: lease, record, next_token, issues. ARGV: issue, owner, ttl, now, max ttl, skew.
   * → {1, lease, dropped lease or ''} | {0, holder lease}
   */
  issueloopClaim: {
    numberOfKeys: 4,
    lua: `${INVALID}
local now = tonumber(ARGV[4])
local ttl = tonumber(ARGV[3])
local raw = redis.call('GET', KEYS[1])
local dropped = ''
if raw then
  local held = cjson.decode(raw)
  if is_live(held, now, tonumber(ARGV[5]), tonumber(ARGV[6])) then return {0, raw} end
  -- Expired by the callers' clock before Redis expired the key, or invalid: it is free.
  if invalid(held, now, tonumber(ARGV[5]), tonumber(ARGV[6])) then dropped = raw end
  redis.call('DEL', KEYS[1])
end
local token = redis.call('INCR', KEYS[3])
local lease = cjson.encode({token = token, owner = ARGV[2], claimed = now, expires = now + ttl, ttl = ttl})
redis.call('SET', KEYS[1], lease, 'NX', 'PX', ttl)
redis.call('HINCRBY', KEYS[2], 'attempts', 1)
redis.call('SADD', KEYS[4], ARGV[1])
return {1, lease, dropped}
`,
  },
  /** KEYS: lease. ARGV: token, owner, now, max ttl, skew. → {1, lease} | {0, why, stored lease?} */
  issueloopRenew: {
    numberOfKeys: 1,
    lua: `${STALENESS}
local now = tonumber(ARGV[3])
local raw = redis.call('GET', KEYS[1])
local stale = staleness(raw, ARGV[1], ARGV[2], now, tonumber(ARGV[4]), tonumber(ARGV[5]))
if stale then return {0, stale, raw or ''} end
local lease = cjson.decode(raw)
lease.expires = now + tonumber(lease.ttl)
local out = cjson.encode(lease)
redis.call('SET', KEYS[1], out, 'XX', 'PX', tonumber(lease.ttl))
return {1, out}
`,
  },
  /**
   * KEYS: lease, record, issues. ARGV: token, owner, now, JSON {issue, outcome, at, failure?: {class,
   * message}, interrupted, partial?, hint?}, max ttl, skew. → {1} | {0, why, stored lease?}
   */
  issueloopRelease: {
    numberOfKeys: 3,
    lua: `${STALENESS}${ADD_FAILURE}
local now = tonumber(ARGV[3])
local o = cjson.decode(ARGV[4])
local raw = redis.call('GET', KEYS[1])
local stale = staleness(raw, ARGV[1], ARGV[2], now, tonumber(ARGV[5]), tonumber(ARGV[6]))
if stale then
  -- The lease is not ours to end, but a failure describes the issue and is still counted.
  if o.failure then
    add_failure(KEYS[2], o.at, o.failure.class, o.failure.message)
    redis.call('SADD', KEYS[3], o.issue)
  end
  return {0, stale, raw or ''}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'last_outcome', o.outcome)
if o.failure then add_failure(KEYS[2], o.at, o.failure.class, o.failure.message) end
if o.interrupted then
  redis.call('HSET', KEYS[2], 'interrupted_at', o.at, 'partial_context', o.partial or '')
else
  redis.call('HDEL', KEYS[2], 'interrupted_at', 'partial_context')
  if o.hint then redis.call('HSET', KEYS[2], 'hint', o.hint) else redis.call('HDEL', KEYS[2], 'hint') end
end
return {1}
`,
  },
  /** KEYS: record, issues. ARGV: issue, at, class, message. */
  issueloopRecordFailure: {
    numberOfKeys: 2,
    lua: `${ADD_FAILURE}
add_failure(KEYS[1], ARGV[2], ARGV[3], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
`,
  },
  /** KEYS: record. → 1 when there was anything to clear. */
  issueloopResetFailures: {
    numberOfKeys: 1,
    lua: `
local count = tonumber(redis.call('HGET', KEYS[1], 'failure_count') or '0')
local reasons = redis.call('HGET', KEYS[1], 'failure_reasons')
if count == 0 and (not reasons or reasons == '[]') then return 0 end
redis.call('HSET', KEYS[1], 'failure_count', 0, 'failure_reasons', '[]')
redis.call('HDEL', KEYS[1], 'last_failure_at')
return 1
`,
  },
  /** KEYS: record, issues. ARGV: issue, JSON fields to set. → 1 when taken (the issue was unknown). */
  issueloopImportHistory: {
    numberOfKeys: 2,
    lua: `
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 0 end
local fields = cjson.decode(ARGV[2])
for name, value in pairs(fields) do redis.call('HSET', KEYS[1], name, value) end
redis.call('SADD', KEYS[2], ARGV[1])
return 1
`,
  },
  /** KEYS: lease. ARGV: now, max ttl, skew. → the lease when it was live, else '' (an expired one is removed too). */
  issueloopForceRelease: {
    numberOfKeys: 1,
    lua: `${INVALID}
local raw = redis.call('GET', KEYS[1])
if not raw then return '' end
redis.call('DEL', KEYS[1])
local lease = cjson.decode(raw)
if is_live(lease, tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])) then return raw end
return ''
`,
  },
  /** KEYS: issues. ARGV: key prefix, now, max ttl, skew. → {live leases, issues}; the token counter stays. */
  issueloopClear: {
    numberOfKeys: 1,
    lua: `${INVALID}
local now = tonumber(ARGV[2])
local issues = redis.call('SMEMBERS', KEYS[1])
local live = 0
for _, issue in ipairs(issues) do
  local raw = redis.call('GET', ARGV[1] .. 'lease:' .. issue)
  if raw and is_live(cjson.decode(raw), now, tonumber(ARGV[3]), tonumber(ARGV[4])) then live = live + 1 end
  redis.call('DEL', ARGV[1] .. 'lease:' .. issue, ARGV[1] .. 'issue:' .. issue)
end
redis.call('DEL', KEYS[1])
return {live, #issues}
`,
  },
} as const satisfies Record<string, RedisScript>;
