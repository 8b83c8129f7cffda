import { z } from 'zod';
import { duration } from './duration-schema.js';

/**
 * `github.app`: a GitHub App whose installation tokens issueloop mints and renews itself. Its id
 * (or client id) and installation are settings; its private key is a credential and comes only from
 * ISSUELOOP_APP_PRIVATE_KEY, never from a file others read or a `--set` that shows in `ps`.
 */

export const APP_KEY_ENV = 'ISSUELOOP_APP_PRIVATE_KEY';

const appId = z
  .union([
    z.int().positive(),
    z.string().regex(/^(?:\d+|Iv[A-Za-z0-9._-]+)$/, 'expected the App id (a number) or its client id (Iv…)'),
  ])
  .transform((id) => (typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id));

const privateKeyRefused = z
  .unknown()
  .optional()
  .superRefine((value, ctx) => {
    if (value === undefined) return;
    ctx.addIssue({
      code: 'custom',
      message: `the App's private key is a credential, not a setting: remove it here and put the PEM text (or a path to the .pem file) in ${APP_KEY_ENV}`,
    });
  })
  .transform(() => undefined);

const AppSchema = z.strictObject({
  id: appId,
  /** Looked up for the repository (`GET /repos/{owner}/{repo}/installation`) when unset. */
  installation_id: z
    .int("expected the installation id, a number (in the URL of the App's installation settings page)")
    .positive()
    .optional(),
  private_key: privateKeyRefused,
});

export const GitHubSchema = z.strictObject({
  app: AppSchema.optional(),
  /**
   * The pause between two writes to GitHub (its REST and GraphQL mutations): GitHub asks for at least
   * a second, and a busier pace meets its secondary rate limits. Lower it only for a GitHub Enterprise
   * Server whose administrator allows it, or an emulator.
   */
  write_spacing: duration({ min: 0, max: 60_000 }).prefault('1s'),
});
