import type { IssueRecord } from './records.js';
import { notFound, type Reply } from './replies.js';
import type { Route } from './router.js';
import { findIssue, pagedReply } from './routes-issues.js';
import { issueJson } from './serialize.js';

/** Records that `issue` is blocked by `blocker`, as GitHub's "Add a dependency an issue is blocked by" does. */
export function addBlockedBy(issue: IssueRecord, blocker: IssueRecord): void {
  if (blocker.number === issue.number) throw new Error(`emulator: #${issue.number} cannot block itself`);
  const list = issue.blockedBy ?? [];
  if (!list.includes(blocker.number)) list.push(blocker.number);
  issue.blockedBy = list;
}

/** GitHub's issue dependencies, as far as issueloop reads them: the issues one is blocked by. */
export const dependencyRoutes: readonly Route[] = [
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/issues/:number/dependencies/blocked_by',
    handle: (ctx): Reply => {
      const issue = findIssue(ctx);
      if (!issue) return notFound();
      const blockers = (issue.blockedBy ?? []).flatMap((n) => {
        const blocker = ctx.store.issues.get(n);
        return blocker ? [blocker] : [];
      });
      return pagedReply(ctx, blockers, (blocker) => issueJson(ctx.store, blocker, ctx.urls));
    },
  },
];
