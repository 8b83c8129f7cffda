import { z } from 'zod';

/**
 * The claims file's format, validated on every read. Field names are snake_case because this is a
 * file people open (`cat .issueloop/claims.json`) and the shape `issueloop claims --json` prints.
 */
export const CLAIMS_FORMAT_VERSION = 1;

/** How many failure reasons an issue keeps: enough to see a pattern, small enough to read. */
export const MAX_FAILURE_REASONS = 10;

const timestamp = z.iso.datetime({ offset: true });
const issueNumber = z.int().positive();

const LeaseSchema = z.strictObject({
  issue: issueNumber,
  owner: z.string().min(1),
  /** Fencing token: grows with every lease the store grants, never reused. */
  token: z.int().positive(),
  claimed_at: timestamp,
  expires_at: timestamp,
  ttl_ms: z.int().positive(),
});

const FailureReasonSchema = z.strictObject({
  at: timestamp,
  /** An error class from classification, or a session outcome such as `verify_failed`. */
  error_class: z.string().min(1),
  /** One redacted line. */
  message: z.string(),
});

const ClaimRecordSchema = z.strictObject({
  issue: issueNumber,
  lease: LeaseSchema.nullable(),
  failure_count: z.int().nonnegative(),
  last_failure_at: timestamp.nullable(),
  failure_reasons: z.array(FailureReasonSchema).max(MAX_FAILURE_REASONS),
  attempts: z.int().nonnegative(),
  last_outcome: z.string().nullable(),
  interrupted_at: timestamp.nullable(),
  partial_context: z.string().nullable(),
  /** The diagnosis hint for the next attempt after an unknown failure (seed 001); absent in older files. */
  hint: z.string().nullable().default(null),
});

export const ClaimsFileSchema = z
  .strictObject({
    version: z.literal(CLAIMS_FORMAT_VERSION),
    next_token: z.int().positive(),
    issues: z.record(z.string().regex(/^[1-9]\d*$/, 'expected an issue number as key'), ClaimRecordSchema),
  })
  .superRefine((file, ctx) => {
    for (const [key, record] of Object.entries(file.issues)) {
      if (String(record.issue) !== key) {
        ctx.addIssue({ code: 'custom', path: ['issues', key, 'issue'], message: `must be ${key}` });
      }
      if (record.lease && record.lease.issue !== record.issue) {
        ctx.addIssue({ code: 'custom', path: ['issues', key, 'lease', 'issue'], message: `must be ${key}` });
      }
      if (record.lease && record.lease.token >= file.next_token) {
        ctx.addIssue({
          code: 'custom',
          path: ['issues', key, 'lease', 'token'],
          message: `must be below next_token (${file.next_token})`,
        });
      }
    }
  });

export type Lease = z.infer<typeof LeaseSchema>;
export type FailureReason = z.infer<typeof FailureReasonSchema>;
export type ClaimRecord = z.infer<typeof ClaimRecordSchema>;
export type ClaimsFile = z.infer<typeof ClaimsFileSchema>;

export function emptyClaimsFile(nextToken = 1): ClaimsFile {
  return { version: CLAIMS_FORMAT_VERSION, next_token: nextToken, issues: {} };
}
