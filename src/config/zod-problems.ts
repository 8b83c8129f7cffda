import type { z } from 'zod';
import type { ConfigProblem } from '../core/errors.js';
import { formatPath } from '../core/format-path.js';
import { ConfigSchema } from './schema.js';
import { keysAt, suggest } from './schema-keys.js';

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'a mapping';
  // JSON has no Infinity or NaN: without this, YAML's `.inf` would be reported as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** zod's "Invalid input: expected number, received string" → "expected number, got "4"". */
function rephrase(issue: z.core.$ZodIssue): string {
  const message = issue.message.replace(/^(Invalid input|Too small|Too big|Invalid option): /, '');
  if (issue.code === 'custom' || /\bgot\b/.test(message)) return message;
  const input = (issue as { input?: unknown }).input;
  const trimmed = message.replace(/, received \w+$/, '');
  return `${trimmed}, got ${describe(input)}`;
}

/** One problem per zod issue (one per key for unknown keys, with a did-you-mean), sourced. */
export function zodProblems(
  issues: readonly z.core.$ZodIssue[],
  findSource: (path: string) => string | undefined,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const add = (path: string, message: string) => {
    const source = findSource(path);
    problems.push(source ? { path, message, source } : { path, message });
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(ConfigSchema, issue.path) ?? [];
      for (const key of issue.keys) {
        const near = suggest(key, known);
        add(formatPath([...issue.path, key]), `unknown key${near ? ` (did you mean "${near}"?)` : ''}`);
      }
      continue;
    }
    add(formatPath(issue.path), rephrase(issue));
  }
  return problems;
}
