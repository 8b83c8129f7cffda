import { forTerminal } from '../core/terminal-text.js';
import { sanitizeIssueText } from './sanitize.js';
import { clip, oneLine } from './text-limits.js';

/**
 * Texts a check brings (its name, a status's context, titles, summaries, annotations, job logs) are
 * written by whoever runs it: on a PR's branch that is code the agent wrote. Before the model or a
 * person sees one: terminal escape sequences go, then what issue text loses (HTML comments, bidi,
 * invisible and tag characters), then it is bounded.
 */

/** Names and contexts: GitHub's own limit for a check run's name is far beyond what anyone reads. */
export const MAX_CHECK_NAME = 200;

/** Format characters sanitizeIssueText does not name (a name is one line of plain text). */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/**
 * Text without terminal escape sequences or control characters (line feeds and tabs stay): the CLI's
 * own cleaner, an unterminated string sequence taking the rest of the text with it.
 */
export function stripEscapes(text: string): string {
  return forTerminal(text, { unterminated: 'text' });
}

/** A check's text for the model: escapes first (one could split `<!--`), then the issue text rules. */
export function cleanCheckText(text: string, maxChars: number): string {
  return clip(sanitizeIssueText(stripEscapes(text)).text, maxChars);
}

/** A check run's name or a status's context: cleaned, one line, at most MAX_CHECK_NAME characters. */
export function cleanCheckName(name: string): string {
  const visible = sanitizeIssueText(stripEscapes(name)).text.replace(FORMAT_CHARACTERS, '');
  return clip(oneLine(visible), MAX_CHECK_NAME);
}
