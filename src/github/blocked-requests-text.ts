import { safeCount, safeDestination, safeRole } from '../core/destination-text.js';

/** A destination the session's egress proxy refused (the sandbox's BlockedRequest, as GitHub text sees it). */
export interface BlockedLine {
  role: string;
  destination: string;
  count: number;
}

/** Destinations listed in a PR body or a tracking comment; the rest are counted. */
export const MAX_BLOCKED_LISTED = 10;

export const WIDEN_HINT = 'if the work needs one of them, add its host to `sandbox.allow_domains` on purpose';

/**
 * ``- `registry.npmjs.org:443` ×3 (setup)`` per destination, most-refused first, at most
 * MAX_BLOCKED_LISTED. Each destination is untrusted text: `safeDestination` leaves only characters
 * of host names and ports (no backtick among them), so the code span cannot be broken out of.
 */
export function blockedItems(
  blocked: readonly BlockedLine[],
  redact: (text: string) => string,
  others = 0,
): string[] {
  // Redacted first: a host name can carry a secret (`<token>.attacker.example`).
  const items = blocked
    .slice(0, MAX_BLOCKED_LISTED)
    .map((b) => `\`${safeDestination(redact(b.destination))}\` ×${safeCount(b.count)} (${safeRole(b.role)})`);
  if (blocked.length > MAX_BLOCKED_LISTED) items.push(`… and ${blocked.length - MAX_BLOCKED_LISTED} more`);
  // The session's tally keeps the most-refused destinations: what it could not list is counted.
  if (others > 0) items.push(`… and ${safeCount(others)} more refused requests to destinations not listed`);
  return items;
}

/** The PR body's section, or nothing when the proxy refused nothing. */
export function renderBlockedSection(
  blocked: readonly BlockedLine[] | undefined,
  redact: (text: string) => string,
  others = 0,
): string[] {
  if (!blocked || blocked.length === 0) return [];
  return [
    '## Blocked network requests',
    '',
    `The sandbox refused these destinations during the session; ${WIDEN_HINT}.`,
    '',
    ...blockedItems(blocked, redact, others).map((item) => `- ${item}`),
    '',
  ];
}
