import type { ErrorClass } from '../core/classify/policy.js';

/** Only these failures are specific to the model in use; auth and context errors follow every model. */
export const FAILOVER_CLASSES: ReadonlySet<ErrorClass> = new Set(['rate_limit', 'overloaded', 'timeout']);

export const DEFAULT_COOLDOWN_MS = 60_000;
export const MAX_COOLDOWN_MS = 15 * 60_000;

export interface FailoverChainOptions {
  primary: string;
  fallbacks: readonly string[];
  now: () => number;
  baseCooldownMs?: number;
  maxCooldownMs?: number;
}

export interface FailoverSwitch {
  from: string;
  to: string;
}

export interface FailoverChain {
  /** The model to call now. */
  current(): string;
  /** The chain in order: the user's primary first. */
  readonly models: readonly string[];
  /**
   * Records that `model` failed with a failover class: it cools down (60 s, doubling with each
   * failure in a row, at most 15 min, never less than the server's own wait) and the chain moves to
   * the first model in order that is not cooling down. Returns the switch, or undefined when there
   * is nowhere better to go (no fallbacks, or every other model is cooling down for longer).
   */
  fail(model: string, errorClass: ErrorClass, retryAfterMs?: number): FailoverSwitch | undefined;
  /** A successful call ends the model's run of failures, so its next cooldown starts short again. */
  succeed(model: string): void;
  /**
   * Back to the user's primary at the start of every issue — or the first model in order that is not
   * cooling down: cooldowns outlive the issue, they are about the model.
   */
  reset(): void;
  /** When `model` may be tried again (epoch ms), or undefined when it is not cooling down. */
  coolingUntil(model: string): number | undefined;
}

/** Seed 000 feature 4, generalised from a swap to an ordered chain with cooldowns. */
export function createFailoverChain(options: FailoverChainOptions): FailoverChain {
  const models = [...new Set([options.primary, ...options.fallbacks])];
  const base = options.baseCooldownMs ?? DEFAULT_COOLDOWN_MS;
  const cap = options.maxCooldownMs ?? MAX_COOLDOWN_MS;
  const failures = new Map<string, number>();
  const until = new Map<string, number>();
  let active = models[0] ?? options.primary;

  const cooling = (model: string, at: number) => (until.get(model) ?? 0) > at;

  return {
    models,
    current: () => active,
    fail(model, errorClass, retryAfterMs) {
      if (!FAILOVER_CLASSES.has(errorClass)) return undefined;
      const at = options.now();
      const count = (failures.get(model) ?? 0) + 1;
      failures.set(model, count);
      const cooldown = Math.min(cap, Math.max(base * 2 ** (count - 1), retryAfterMs ?? 0));
      until.set(model, at + cooldown);
      const ready = models.find((candidate) => !cooling(candidate, at));
      // Everyone is cooling down: the one that becomes free first, when that is not the failed model.
      const next =
        ready ??
        models.reduce((best, candidate) =>
          (until.get(candidate) ?? 0) < (until.get(best) ?? 0) ? candidate : best,
        );
      if (next === model || next === active) return undefined;
      const change = { from: active, to: next };
      active = next;
      return change;
    },
    succeed(model) {
      failures.delete(model);
    },
    reset() {
      const at = options.now();
      active = models.find((candidate) => !cooling(candidate, at)) ?? models[0] ?? options.primary;
    },
    coolingUntil(model) {
      const at = until.get(model);
      return at !== undefined && at > options.now() ? at : undefined;
    },
  };
}
