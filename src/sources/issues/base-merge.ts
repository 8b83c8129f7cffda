import { type CommitAuthor, fetchBranch, type GitOptions } from '../../session/git/index.js';
import { startMerge, withConflictMarkers } from '../../session/git/merge.js';
import type { RemoteRef } from '../../session/git/remote.js';
import type { Prepared } from '../../session/session-work.js';
import type { BaseMerge, FollowUp } from './follow-up.js';

/**
 * A follow-up whose PR's base moved: the harness fetches the base and merges it into the branch in
 * the new worktree before any agent (never a rebase, so nothing rewritten is force-pushed). A clean
 * merge needs no agent: it is verified and pushed as it is. A conflicted one goes to the agent with
 * the conflicted files, and is not finished while a conflict marker is left in one of them.
 */
export function baseMerge(
  followUp: FollowUp,
  at: { checkout: string; remote: RemoteRef; author: CommitAuthor },
) {
  const base = followUp.pull.baseRef;
  let merge: BaseMerge | undefined;
  return {
    /** How the merge went, once `prepare` ran. */
    result: (): BaseMerge | undefined => merge,
    /** The merge commit's message. */
    message: (issue: number) => `Merge ${base} into issueloop/issue-${issue}\n`,
    async prepare(worktree: string, git: GitOptions): Promise<Prepared> {
      const sha = await fetchBranch(at.checkout, at.remote, base, git);
      const started = await startMerge(worktree, { sha, author: at.author }, git);
      if (started.kind === 'refused') return { agent: false, refused: started.reason };
      if (started.kind === 'up_to_date') {
        return { agent: false, summary: `The branch already holds ${base} (${sha.slice(0, 12)}).` };
      }
      merge = { sha, conflicted: started.kind === 'conflicted' ? started.paths : [] };
      if (started.kind === 'conflicted') return { agent: true, scanFrom: sha, mergeParent: sha };
      const summary = `The harness merged ${base} (${sha.slice(0, 12)}) into the branch without a conflict.`;
      return { agent: false, summary, scanFrom: sha, mergeParent: sha };
    },
    async unfinished(worktree: string): Promise<string | undefined> {
      if (!merge || merge.conflicted.length === 0) return undefined;
      const left = await withConflictMarkers(worktree, merge.conflicted);
      if (left.length === 0) return undefined;
      return `Conflict markers are still in ${left.join(', ')}: the merge of ${base} is not resolved.`;
    },
  };
}
