import { withoutEscapeSequences } from '../core/terminal-text.js';
import { sanitizeIssueText } from './sanitize.js';
import { clip, oneLine } from './text-limits.js';

/** GitHub refuses issue titles longer than 256 characters, so a longer one is not an honest title. */
export const MAX_ISSUE_TITLE = 256;

/** Format characters the body's list does not name (interlinear annotations, Arabic number signs …). */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/**
 * An issue title as every consumer gets it (the model's first message, the pull request title, the
 * commit subject, logs and summaries): the body's sanitiser first (HTML comments, invisible, bidi
 * and tag characters), then escape sequences go whole (`ESC ] 0;pwned BEL` leaves no `]0;pwned` to
 * show), then one line — newlines, tabs and other control characters become one space, other format
 * characters go — cut to GitHub's 256 characters.
 *
 * GitHub shows a title as plain text, so an HTML comment in one is visible there; removing it still
 * costs only that literal text, and a title is then handled like the body everywhere.
 */
export function sanitizeIssueTitle(title: string): string {
  const visible = withoutEscapeSequences(sanitizeIssueText(title).text).replace(FORMAT_CHARACTERS, '');
  return clip(oneLine(visible), MAX_ISSUE_TITLE);
}
