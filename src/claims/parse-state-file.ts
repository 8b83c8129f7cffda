import type { z } from 'zod';
import { CorruptStateError } from '../core/errors.js';
import { formatPath } from '../core/format-path.js';

/**
 * A versioned JSON state file's text, parsed and validated (`claims.json`, `outcomes.json`): an
 * empty file, invalid JSON or a shape the schema refuses is `corrupt` (naming the file and its fix);
 * a version above `version` was written by a newer issueloop and says to upgrade.
 */
export function parseStateFile<T>(
  file: string,
  text: string,
  format: {
    schema: z.ZodType<T>;
    version: number;
    /** `a claims file`: what the text should have been, for the message. */
    what: string;
    corrupt: (file: string, detail: string, cause?: unknown) => CorruptStateError;
  },
): T {
  const { corrupt } = format;
  if (text.trim() === '') throw corrupt(file, 'the file is empty');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw corrupt(file, `invalid JSON: ${(err as Error).message}`, err);
  }
  const version = (data as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > format.version) {
    throw new CorruptStateError(
      file,
      `format version ${version} was written by a newer issueloop (this one reads version ${format.version})`,
      'Upgrade issueloop to read it.',
      { reason: 'newer_version' },
    );
  }
  const parsed = format.schema.safeParse(data);
  if (!parsed.success) {
    const shown = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${formatPath(i.path) || '(top level)'}: ${i.message}`);
    const more = parsed.error.issues.length > 3 ? ` (and ${parsed.error.issues.length - 3} more)` : '';
    throw corrupt(file, `not ${format.what}: ${shown.join('; ')}${more}`, parsed.error);
  }
  return parsed.data;
}
