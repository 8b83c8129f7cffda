import { resolve } from 'node:path';
import type { Clock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import type { ClaimStore } from './claim-store.js';
import { createFileClaimStore } from './file-claim-store.js';
import { createFileOutcomeStore } from './file-outcome-store.js';
import type { OutcomeStore } from './outcome-store.js';
import { createRedisClaimStore } from './redis-claim-store.js';
import { createRedisOutcomeStore } from './redis-outcome-store.js';
import { redisLocation } from './redis-records.js';
import { createFileSpendBackend } from './spend-file.js';
import { createSpendLedger, type SpendLedger } from './spend-ledger.js';
import { createRedisSpendLedger } from './spend-redis.js';
import { hasCaps, type SpendCaps } from './spend-windows.js';

const CLAIMS_FILE_NAME = 'claims.json';
const OUTCOMES_FILE_NAME = 'outcomes.json';
const SPEND_FILE_NAME = 'spend.json';

/** The settings a store is opened from: the shape of the validated config, declared here structurally. */
export interface ClaimStoreSettings {
  claims: { store: 'file' | 'redis'; redis_url?: string | undefined; max_failures: number };
  /** Resolved against `cwd`. */
  state_dir: string;
  /** `owner/name`: a Redis store keeps each repository's claims under its own key prefix. */
  repo?: string | undefined;
}

export interface OpenedClaimStore {
  store: ClaimStore;
  /** Where the claims live, for messages: a file path today, a URL for a server store. */
  location: string;
  /** The claims file of a file store (reset moves it aside when it is corrupt). */
  file?: string;
}

/** The store the configuration names, ready to use; opening it touches nothing on disk. */
export function openClaimStore(
  settings: ClaimStoreSettings,
  options: { cwd: string; clock: Pick<Clock, 'now'>; redact?: Redactor; log?: Log },
): OpenedClaimStore {
  const extras = {
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.log ? { log: options.log } : {}),
  };
  if (settings.claims.store === 'redis') {
    const { url, repo } = redisSettings(settings);
    const store = createRedisClaimStore({
      url,
      repo,
      clock: options.clock,
      maxFailures: settings.claims.max_failures,
      ...extras,
    });
    return { store, location: `${redisLocation(url)} (${repo})` };
  }
  const file = resolve(options.cwd, settings.state_dir, CLAIMS_FILE_NAME);
  const store = createFileClaimStore({
    file,
    clock: options.clock,
    maxFailures: settings.claims.max_failures,
    ...extras,
  });
  return { store, location: file, file };
}

function redisSettings(settings: ClaimStoreSettings): { url: string; repo: string } {
  const url = settings.claims.redis_url;
  if (!url) throw new UsageError('claims.store is redis but claims.redis_url is not set');
  if (!settings.repo) {
    throw new UsageError(
      'a Redis claim store keeps claims per repository: pass --repo owner/name, set `repo:` or ISSUELOOP_REPO',
    );
  }
  return { url, repo: settings.repo };
}

export interface OpenedOutcomeStore {
  store: OutcomeStore;
  /** Where the records live, for messages: `outcomes.json`'s path, or the Redis server and repository. */
  location: string;
}

/**
 * The outcome records beside the claims the configuration names: `outcomes.json` in the state
 * directory for a file store, the same Redis server and key prefix for a Redis one. Opening touches
 * nothing on disk and connects to nothing.
 */
export function openOutcomeStore(settings: ClaimStoreSettings, options: { cwd: string }): OpenedOutcomeStore {
  if (settings.claims.store === 'redis') {
    const { url, repo } = redisSettings(settings);
    return { store: createRedisOutcomeStore({ url, repo }), location: `${redisLocation(url)} (${repo})` };
  }
  const file = resolve(options.cwd, settings.state_dir, OUTCOMES_FILE_NAME);
  return { store: createFileOutcomeStore({ file }), location: file };
}

/**
 * The spend ledger beside the claims (the same file directory or Redis server), when `budget` sets a
 * cap; undefined otherwise. Opening it touches nothing.
 */
export function openSpendLedger(
  settings: ClaimStoreSettings & { budget?: SpendCaps | undefined },
  options: { cwd: string; clock: Pick<Clock, 'now'> },
): SpendLedger | undefined {
  const caps = settings.budget;
  if (!hasCaps(caps)) return undefined;
  // A Redis store without its URL or repository is the same error as for the claims: spend kept in
  // a local file instead would let runners sharing the Redis claims overspend together.
  if (settings.claims.store === 'redis') {
    const { url, repo } = redisSettings(settings);
    return createRedisSpendLedger({ url, repo, caps, clock: options.clock });
  }
  const file = resolve(options.cwd, settings.state_dir, SPEND_FILE_NAME);
  return createSpendLedger(createFileSpendBackend(file), { caps, clock: options.clock });
}
