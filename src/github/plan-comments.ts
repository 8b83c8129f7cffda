import { type GitHubClient, repoPath } from './client.js';
import { getAllPages } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { isPlanComment, isWithdrawn, planText } from './plan-comment.js';

export interface ThreadComment {
  id: number;
  author: string;
  body: string;
  createdAt: string;
}

/** An issue's newest plan, and the comments written after it (oldest first). */
export interface PlanThread {
  plan?: { id: number; text: string; body: string; createdAt: string; withdrawn: boolean };
  after: ThreadComment[];
}

function reduceThread(raw: unknown): ThreadComment[] {
  if (!Array.isArray(raw)) throw new TypeError('expected an array of issue comments');
  return (raw as Array<Record<string, unknown>>).flatMap((entry) => {
    const user = entry.user as { login?: unknown } | null | undefined;
    if (typeof entry.id !== 'number') return [];
    return [
      {
        id: entry.id,
        author: typeof user?.login === 'string' ? user.login : 'ghost',
        body: typeof entry.body === 'string' ? entry.body : '',
        createdAt: typeof entry.created_at === 'string' ? entry.created_at : '',
      },
    ];
  });
}

/**
 * The newest plan comment written by issueloop (`me`) and what came after it. GitHub's comment ids
 * grow with time, so "after" is a larger id: a comment edited later is still placed where it was written.
 */
export function planThread(comments: readonly ThreadComment[], issue: number, me: string): PlanThread {
  const own = (c: ThreadComment) => c.author.toLowerCase() === me.toLowerCase();
  const plans = comments.filter((c) => own(c) && isPlanComment(c.body, issue));
  const newest = plans.reduce<ThreadComment | undefined>((a, c) => (a && a.id > c.id ? a : c), undefined);
  if (!newest) return { after: [] };
  return {
    plan: {
      id: newest.id,
      text: planText(newest.body),
      body: newest.body,
      createdAt: newest.createdAt,
      withdrawn: isWithdrawn(newest.body),
    },
    after: comments.filter((c) => c.id > newest.id).sort((a, b) => a.id - b.id),
  };
}

/**
 * Plan comments on GitHub: an issue's comments read (conditionally: a 304 while nothing changed;
 * its own URL, apart from the tracking comment's, since the cache keeps each URL's reduced page),
 * a plan posted, a plan edited when it is withdrawn.
 */
export function createPlanComments(gh: GitHubClient, cache: EtagCache) {
  const { owner, name: repo } = gh.repo;
  return {
    async read(issue: number, me: string): Promise<PlanThread> {
      const url = `${repoPath(gh.repo)}/issues/${issue}/comments?page=1&per_page=100`;
      const listing = await getAllPages(gh, cache, url, reduceThread, `read the plan of #${issue}`, 20);
      return planThread(listing.items, issue, me);
    },

    async post(issue: number, body: string): Promise<number> {
      const created = await gh.call(`post the plan on #${issue}`, () =>
        gh.rest.issues.createComment({ owner, repo, issue_number: issue, body }),
      );
      return created.data.id;
    },

    async edit(issue: number, id: number, body: string): Promise<void> {
      await gh.call(`withdraw the plan on #${issue}`, () =>
        gh.rest.issues.updateComment({ owner, repo, comment_id: id, body }),
      );
    },
  };
}

export type PlanComments = ReturnType<typeof createPlanComments>;
