import type { RepoRef } from './client.js';
import { sanitizeIssueText } from './sanitize.js';

/** An issue named as a blocker: in this repository (`#N`) or another (`owner/repo#N`). */
export interface IssueRef {
  owner: string;
  name: string;
  number: number;
}

/** `- **Blocked by:** #3`, `Depends on #4, #5 and octo-org/api#6.`: the keyword starts the line. */
const LINE = /^(?:[-*+]\s+)?(?:\*\*|__)?(?:blocked\s+by|depends\s+on)(?:\*\*|__)?\s*:?(?:\*\*|__)?\s+(.+)$/i;
const REF = /^(?:([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+))?#(\d+)$/;
const SEPARATOR = /\s*(?:,|\band\b|\s)\s*/i;
/** A code fence: its character and length (a closing fence uses the same character, at least as many). */
const FENCE = /^(`{3,}|~{3,})/;

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** `#N` for an issue of `home`, `owner/repo#N` for any other: how a reason names a blocker. */
export function refText(ref: IssueRef, home: RepoRef): string {
  const local = sameName(ref.owner, home.owner) && sameName(ref.name, home.name);
  return local ? `#${ref.number}` : `${ref.owner}/${ref.name}#${ref.number}`;
}

/** The refs of one line after its keyword, or none when anything else is on it (prose, not a marker). */
function refsOf(rest: string, home: RepoRef): IssueRef[] {
  const parts = rest
    .trim()
    .replace(/\.$/, '')
    .split(SEPARATOR)
    .filter((part) => part !== '');
  const refs: IssueRef[] = [];
  for (const part of parts) {
    const match = REF.exec(part);
    if (!match) return [];
    const number = Number(match[3]);
    if (!Number.isSafeInteger(number) || number < 1) return [];
    refs.push({ owner: match[1] ?? home.owner, name: match[2] ?? home.name, number });
  }
  return refs;
}

/**
 * The blockers an issue's body names, one marker a line: `Blocked by #N`, `blocked by: #N, #M`,
 * `Depends on owner/repo#N`. Read from the sanitised body (what github.com shows: nothing hidden in a
 * comment counts) and outside fenced code. A line that holds anything but refs after its keyword is
 * prose and names nothing. Each blocker once, in the order written.
 */
export function parseBlockedByLines(body: string, home: RepoRef): IssueRef[] {
  const seen = new Set<string>();
  const out: IssueRef[] = [];
  /** The open fence, if any: only a fence of the same character, as long or longer, closes it. */
  let open: string | undefined;
  for (const raw of sanitizeIssueText(body).text.split(/\r?\n/)) {
    const line = raw.trim();
    const fence = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      const closes = open !== undefined && fence[0] === open[0] && fence.length >= open.length;
      if (open === undefined) open = fence;
      else if (closes && line === fence) open = undefined;
      continue;
    }
    const match = open !== undefined ? null : LINE.exec(line);
    if (!match?.[1]) continue;
    for (const ref of refsOf(match[1], home)) {
      const key = `${ref.owner}/${ref.name}#${ref.number}`.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(ref);
    }
  }
  return out;
}
