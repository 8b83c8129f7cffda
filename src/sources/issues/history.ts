import type { ClaimStore, ClaimView } from '../../claims/claim-store.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import type { BacklogIssue } from '../../github/issue-shape.js';

export interface HistoryContext {
  github: Pick<GitHubAdapter, 'tracking'>;
  claims: Pick<ClaimStore, 'importHistory'>;
  log: Log;
  redact: Redactor;
}

/**
 * History that survives the runner: an issue the claim store has never seen may still have been
 * worked by an earlier runner whose state directory is gone (every GitHub Actions job starts empty).
 * Before a round claims, the first `want` candidates the store does not know get the attempts,
 * failure count and reasons from the hidden record of their tracking comment, so a new runner still
 * puts repeatedly failing issues last and sends them to a human after `max_failures`.
 *
 * Each issue is looked at once per run (`checked`): the comment is read at most once, and never for
 * an issue the store already knows. A comment that cannot be read now (GitHub failing) leaves the
 * issue `unread`: the caller does not claim it this round, since working it as new would overwrite
 * the history its comment holds, and it is tried again next round. A claim store that cannot be
 * reached is thrown, for the round to pause.
 */
export async function importCandidateHistory(
  ctx: HistoryContext,
  candidates: readonly BacklogIssue[],
  known: ReadonlyMap<number, ClaimView>,
  checked: Set<number>,
  want: number,
): Promise<{ imported: number[]; unread: number[] }> {
  const imported: number[] = [];
  const unread: number[] = [];
  let looked = 0;
  for (const issue of candidates) {
    if (looked >= want) break;
    if (known.has(issue.number) || checked.has(issue.number)) {
      looked += 1;
      continue;
    }
    let record: Awaited<ReturnType<HistoryContext['github']['tracking']['readRecord']>>;
    try {
      record = await ctx.github.tracking.readRecord(issue.number);
    } catch (err) {
      unread.push(issue.number);
      ctx.log.warn(
        { issue: issue.number, err: ctx.redact((err as Error).message) },
        `#${issue.number}: could not read its history from the tracking comment; not claimed this round`,
      );
      continue;
    }
    looked += 1;
    checked.add(issue.number);
    if (!record || (record.attempts === 0 && record.failure_count === 0 && record.last_outcome === null))
      continue;
    if (await ctx.claims.importHistory(issue.number, record)) {
      imported.push(issue.number);
      ctx.log.info(
        { issue: issue.number, attempts: record.attempts, failures: record.failure_count },
        `#${issue.number}: history from its tracking comment: ${record.attempts} attempt(s), ${record.failure_count} failure(s)`,
      );
    }
  }
  return { imported, unread };
}
