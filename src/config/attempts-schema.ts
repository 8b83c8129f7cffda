import { z } from 'zod';

/** As schema.ts's `MAX_USD` (kept here too: schema.ts imports this file). */
const MAX_ATTEMPTS_USD = 1_000_000;

/** The most attempts one claim may run: each is a whole session with its own worktree and sandbox. */
export const MAX_ATTEMPTS = 8;

/**
 * `attempts:` — best-of-N after a failure. An issue whose last attempt ended `verify_failed` or
 * `no_changes`, or that carries the label `issueloop:best-of-N`, gets `n` attempts on its next claim
 * (side by side as free workers allow); a judge picks the one delivered. `n: 1` turns it off.
 */
export const AttemptsSchema = z.strictObject({
  n: z.int().min(1, 'expected at least 1 (1 turns best-of-N off)').max(MAX_ATTEMPTS).default(3),
  /** A cap on one claim's attempts together (each attempt still has `session.max_usd`). */
  max_usd: z
    .number()
    .positive('expected a positive amount in US dollars')
    .max(MAX_ATTEMPTS_USD, `expected at most ${MAX_ATTEMPTS_USD} US dollars`)
    .optional(),
  /** The model that compares two or more verified attempts; `model.diagnosis_model` when unset. */
  judge_model: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/, 'expected a model id such as "claude-haiku-5-5"')
    .optional(),
});

export type AttemptsConfig = z.output<typeof AttemptsSchema>;
