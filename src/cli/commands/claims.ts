import { basename } from 'node:path';
import type { ClaimView } from '../../claims/claim-store.js';
import { failureText } from '../../claims/claims-state.js';
import { moveClaimsFileAside } from '../../claims/file-claim-store.js';
import type { OpenedClaimStore } from '../../claims/open-claim-store.js';
import { CorruptStateError, UsageError } from '../../core/errors.js';
import { humanDuration } from '../../core/human-duration.js';
import { terminalJson } from '../../core/terminal-text.js';

/** `42` or `#42` → 42; anything else is a usage error that shows the expected form. */
export function parseIssueArg(text: string): number {
  const match = /^#?([1-9]\d{0,9})$/.exec(text.trim());
  if (!match) throw new UsageError(`issue must be an issue number such as 42 or #42, got "${text}"`);
  return Number(match[1]);
}

function table(rows: readonly string[][]): string {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function renderClaims(
  views: readonly ClaimView[],
  now: number,
  location: string,
  maxFailures: number,
): string {
  if (views.length === 0) return `no claims or failure history in ${location}\n`;
  const rows = [['ISSUE', 'OWNER', 'EXPIRES IN', 'FAILURES', 'LAST OUTCOME', 'LAST REASON']];
  for (const v of views) {
    const last = v.failure_reasons.at(-1);
    rows.push([
      `#${v.issue}`,
      v.lease?.owner ?? '-',
      v.lease ? humanDuration(Date.parse(v.lease.expires_at) - now) : '-',
      `${v.failure_count}/${maxFailures}${v.needs_human ? ' needs human' : ''}`,
      v.last_outcome ?? '-',
      last ? failureText(last) : '-',
    ]);
  }
  const live = views.filter((v) => v.lease).length;
  const blocked = views.filter((v) => v.needs_human).length;
  return `${table(rows)}\n\n${live} leased, ${blocked} needing a human, ${views.length} known (${location})\n`;
}

/** `issueloop claims [--json]`: the table, or `{location, max_failures, claims}` as JSON. */
export async function listClaims(
  opened: OpenedClaimStore,
  maxFailures: number,
  now: number,
  json: boolean,
): Promise<string> {
  const views = await opened.store.list();
  return json
    ? `${terminalJson({ location: opened.location, max_failures: maxFailures, claims: views }, undefined, 2)}\n`
    : renderClaims(views, now, opened.location, maxFailures);
}

export async function releaseClaim(opened: OpenedClaimStore, issue: number): Promise<string> {
  const lease = await opened.store.forceRelease(issue);
  if (!lease) return `#${issue} is not claimed; nothing to release\n`;
  return (
    `released #${issue} (was held by ${lease.owner}, token ${lease.token}); ` +
    'that worker stops when it next renews or releases its lease\n'
  );
}

export async function resetFailures(opened: OpenedClaimStore, issue: number): Promise<string> {
  return (await opened.store.resetFailures(issue))
    ? `cleared the failure history of #${issue}; it is eligible again\n`
    : `#${issue} has no failures recorded; nothing to reset\n`;
}

export interface ResetInput {
  opened: OpenedClaimStore;
  now: number;
  yes: boolean;
  /** Asks a person at a terminal; absent when stdin is not one. */
  confirm?: (question: string) => Promise<boolean>;
}

/**
 * What reset leaves: the outcome records are what `report` is built on (a claim's history only
 * decides what is worked next), and forgetting the spend ledger would lift a budget cap over money
 * already spent.
 */
export const KEPT =
  'kept the outcome history (what `issueloop report` reads) and the spend ledger (what the budget caps count)\n';

/**
 * Clears every lease and all failure history after a confirmation. A claims file that cannot be
 * read is moved aside as `claims.json.corrupt-<time>` instead, so nothing is lost.
 */
export async function resetClaims(input: ResetInput): Promise<string> {
  const { opened } = input;
  let corrupt: CorruptStateError | undefined;
  let question: string;
  try {
    const views = await opened.store.list();
    const live = views.filter((v) => v.lease);
    if (views.length === 0) return `nothing to reset: ${opened.location} holds no claims\n`;
    const owners = [...new Set(live.map((v) => v.lease?.owner))].join(', ');
    question =
      `Clear ${live.length} active lease(s)${live.length ? ` (held by ${owners})` : ''} and the history ` +
      `of ${views.length} issue(s) in ${opened.location}?`;
  } catch (err) {
    // A file from a newer issueloop is not broken: upgrading is the fix, never moving it aside.
    if (!(err instanceof CorruptStateError) || err.reason !== 'unreadable' || !opened.file) throw err;
    corrupt = err;
    question = `${opened.location} is unreadable. Move it aside and start with no claims?`;
  }
  if (!input.yes) {
    if (!input.confirm) {
      throw new UsageError(
        'reset needs a confirmation: run it in a terminal, or pass --yes to skip the question',
      );
    }
    if (!(await input.confirm(`${question} [y/N] `))) return 'reset cancelled; nothing was changed\n';
  }
  if (corrupt && opened.file) {
    const moved = await moveClaimsFileAside(opened.file, input.now);
    return `moved the unreadable claims file to ${basename(moved)}; issueloop starts with no claims\n`;
  }
  const cleared = await opened.store.clear();
  return `cleared ${cleared.leases} lease(s) and the history of ${cleared.issues} issue(s)\n${KEPT}`;
}
