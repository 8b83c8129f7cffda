import { z } from 'zod';
import { duration } from './duration-schema.js';

const DAY_MS = 24 * 60 * 60_000;

const PlanObject = z.strictObject({
  /** Every first attempt starts with a plan a maintainer approves (else only issues labelled `issueloop:plan`). */
  required: z.boolean().default(false),
  /** A plan nobody answered for this long is withdrawn (the issue waits for `/issueloop plan` or retry). */
  expires: duration({ min: 60_000, max: 365 * DAY_MS }).prefault('14d'),
});

/**
 * The `plan:` section: `plan: required` is short for `plan: { required: true }`; the object form
 * sets `required` and `expires` (default 14 days).
 */
export const PlanSchema = z
  .union([z.literal('required'), PlanObject], {
    error: 'expected "required" or an object { required: true|false, expires: "14d" }',
  })
  .transform((plan) => (plan === 'required' ? PlanObject.parse({ required: true }) : plan));

export type PlanConfig = z.output<typeof PlanSchema>;
