import type { ClaimStore, ClaimView } from '../claims/claim-store.js';
import type { Log } from '../core/logger.js';
import type { Redactor } from '../core/redact.js';
import type { GitHubAdapter } from '../github/adapter.js';
import type { BacklogIssue } from '../github/issue-shape.js';

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
 * an issue the store already knows. Returns the issues whose history was taken; the caller plans
 * the round again when there are any. A comment that cannot be read is logged, not fatal.
 */
export async function importCandidateHistory(
  ctx: HistoryContext,
  candidates: readonly BacklogIssue[],
  known: ReadonlyMap<number, ClaimView>,
  checked: Set<number>,
  want: number,
): Promise<number[]> {
  const imported: number[] = [];
  let looked = 0;
  for (const issue of candidates) {
    if (looked >= want) break;
    looked += 1;
    if (known.has(issue.number) || checked.has(issue.number)) continue;
    checked.add(issue.number);
    try {
      const record = await ctx.github.tracking.readRecord(issue.number);
      if (!record || (record.attempts === 0 && record.failure_count === 0 && record.last_outcome === null))
        continue;
      if (await ctx.claims.importHistory(issue.number, record)) {
        imported.push(issue.number);
        ctx.log.info(
          { issue: issue.number, attempts: record.attempts, failures: record.failure_count },
          `#${issue.number}: history from its tracking comment: ${record.attempts} attempt(s), ${record.failure_count} failure(s)`,
        );
      }
    } catch (err) {
      ctx.log.warn(
        { issue: issue.number, err: ctx.redact((err as Error).message) },
        `#${issue.number}: could not read its history from the tracking comment; working it as new`,
      );
    }
  }
  return imported;
}
