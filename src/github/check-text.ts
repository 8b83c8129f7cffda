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

/**
 * ECMA-48 sequences, 7-bit and 8-bit: CSI (`ESC [` … final byte), the string commands OSC, DCS, SOS,
 * PM and APC up to their terminator (BEL or ST; unterminated, to the end, as a terminal would swallow
 * it), and any other ESC with its intermediates and final byte. A lone ESC goes too.
 */
const ESCAPE_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is removed.
  /\u001b\[[0-?]*[ -/]*[@-~]?|\u009b[0-?]*[ -/]*[@-~]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -/]*[0-~]?/g;

/** Control characters but line feed and tab (a carriage return can overwrite a shown line). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is removed.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Format characters sanitizeIssueText does not name (a name is one line of plain text). */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/** Text without terminal escape sequences or control characters (line feeds and tabs stay). */
export function stripEscapes(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(CONTROLS, '');
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
