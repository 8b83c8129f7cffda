import { CorruptStateError, IssueloopError } from '../core/errors.js';
import { OutcomeRecordSchema } from './outcome-file.js';
import type { OutcomeRecord } from './outcome-record.js';
import { createOutcomeStore, type OutcomeBackend, type OutcomeStore } from './outcome-store.js';
import { openRedisConnection } from './redis-connection.js';
import { luaJson } from './redis-records.js';

/**
 * Outcome records on the Redis server the claims use, under the repository's prefix:
 * `issueloop:<owner>/<repo>:outcome:<issue>` holds one record's JSON and `…:outcomes` is the set of
 * issues with one. An update reads the record, applies the rule, and writes it back with a
 * compare-and-set script: when another runner wrote in between, it reads again and retries.
 */

/** KEYS: record, set. ARGV: the value read ('' for none), the new value, the issue. */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return 1
`;

/** Concurrent writers of one record each win within a few rounds; this many means something is wrong. */
const MAX_ATTEMPTS = 50;

export interface RedisOutcomeStoreOptions {
  url: string;
  repo: string;
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
}

function parseRecord(key: string, raw: string): OutcomeRecord {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    data = err;
  }
  const parsed = OutcomeRecordSchema.safeParse(data);
  if (!parsed.success) {
    throw new CorruptStateError(
      `Redis key ${key}`,
      'not an outcome record',
      `Repair it by hand, or delete the key (DEL ${key}): the next sweep reads the record back from GitHub.`,
      { cause: parsed.error },
    );
  }
  return parsed.data as OutcomeRecord;
}

export function createRedisOutcomeBackend(options: RedisOutcomeStoreOptions): OutcomeBackend {
  const connection = openRedisConnection(options, () => undefined);
  const { prefix, call } = connection;
  const recordKey = (issue: number) => `${prefix}outcome:${issue}`;
  const setKey = `${prefix}outcomes`;

  return {
    update: (issue, fn) =>
      call(`record the outcome of #${issue}`, async (client) => {
        const key = recordKey(issue);
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const raw = (await client.get(key)) ?? '';
          const tx = fn(raw === '' ? undefined : parseRecord(key, raw));
          if (!tx.next) return tx.result;
          const written = await client.eval(COMPARE_AND_SET, 2, key, setKey, raw, luaJson(tx.next), issue);
          if (written === 1) return tx.result;
        }
        throw new IssueloopError(
          'claims_contended',
          `could not update ${key}: it changed under every one of ${MAX_ATTEMPTS} attempts`,
        );
      }),
    get: (issue) =>
      call(`read the outcome of #${issue}`, async (client) => {
        const raw = await client.get(recordKey(issue));
        return raw === null ? undefined : parseRecord(recordKey(issue), raw);
      }),
    list: () =>
      call('list outcomes', async (client) => {
        const issues = (await client.smembers(setKey)).map(Number).sort((a, b) => a - b);
        if (issues.length === 0) return [];
        const values = await client.mget(issues.map(recordKey));
        return issues.flatMap((issue, i) => {
          const raw = values[i];
          return raw ? [parseRecord(recordKey(issue), raw)] : [];
        });
      }),
    close: () => connection.close(),
  };
}

export function createRedisOutcomeStore(options: RedisOutcomeStoreOptions): OutcomeStore {
  return createOutcomeStore(createRedisOutcomeBackend(options));
}
