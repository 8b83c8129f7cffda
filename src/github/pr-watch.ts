import {
  type CheckSummary,
  latestPerApp,
  latestPerContext,
  type RawCheckRun,
  type RawStatus,
  summarizeChecks,
} from './check-summary.js';
import { type GitHubClient, type RepoRef, repoPath } from './client.js';
import { getAllPages, getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { isOwnHead, issueOfBranch } from './own-branch.js';
import { answeredReviewsOf, followupsOf } from './pr-body.js';
import { type CheckPolicy, type RequiredChecks, readRequiredChecks } from './relied-checks.js';

export type { CheckSummary, FailedCheck, IgnoredCheck } from './check-summary.js';

/**
 * What issueloop reads of its own pull requests each round, every request conditional (a 304 costs
 * no rate limit): the open ones and the recently closed ones, one PR's mergeability, and the checks
 * and commit statuses of a head commit. A round in which nothing changed costs no charged request.
 */

/** Pages of 100 check runs, and of 100 statuses, read for one commit. */
const MAX_CHECK_PAGES = 10;

/** A pull request from an `issueloop/issue-<n>` branch of the repository itself. */
export interface OwnPull {
  number: number;
  /** The issue the branch is for. */
  issue: number;
  url: string;
  nodeId: string;
  state: 'open' | 'closed';
  merged: boolean;
  draft: boolean;
  headRef: string;
  headSha: string;
  baseRef: string;
  updatedAt: string;
  /** ISO 8601: when it was opened, merged, closed (as GitHub lists them). */
  createdAt?: string;
  mergedAt?: string;
  closedAt?: string;
}

/** The single-PR read: GitHub computes mergeability only there (null while it is computing). */
export interface PullDetail extends OwnPull {
  mergeable: boolean | null;
  mergeableState: string;
  /** Follow-up sessions that pushed to it so far (the body's marker). */
  followups: number;
  /** Reviews whose own bodies a follow-up answered (the body's marker). */
  answeredReviews: number[];
  /**
   * Its review comments: with `updatedAt` (whole seconds), what says whether its threads may have
   * changed — a comment in the same second as the last read still changes the count.
   */
  reviewComments: number;
  /** Who merged it, once merged. */
  mergedBy?: string;
}

/** Who wrote and who committed one commit of a PR, by e-mail (as git records them). */
export interface PullCommit {
  sha: string;
  authorEmail: string;
  committerEmail: string;
}

interface RawPull {
  number: number;
  html_url: string;
  node_id: string;
  state: string;
  merged?: boolean;
  merged_at?: string | null;
  draft?: boolean;
  updated_at: string;
  created_at?: string;
  closed_at?: string | null;
  merged_by?: { login: string } | null;
  head: { ref: string; sha: string; label?: string; repo?: { full_name?: string } | null };
  base: { ref: string; repo?: { full_name?: string } | null };
  mergeable?: boolean | null;
  mergeable_state?: string;
  body?: string | null;
  review_comments?: number;
}

function toOwnPull(raw: RawPull, repo: RepoRef): OwnPull | undefined {
  const issue = issueOfBranch(raw.head.ref);
  if (issue === undefined || !isOwnHead(raw.head, repo)) return undefined;
  return {
    number: raw.number,
    issue,
    url: raw.html_url,
    nodeId: raw.node_id,
    state: raw.state === 'open' ? 'open' : 'closed',
    merged: raw.merged === true || (raw.merged_at ?? null) !== null,
    draft: raw.draft === true,
    headRef: raw.head.ref,
    headSha: raw.head.sha,
    baseRef: raw.base.ref,
    updatedAt: raw.updated_at,
    ...(raw.created_at ? { createdAt: raw.created_at } : {}),
    ...(raw.merged_at ? { mergedAt: raw.merged_at } : {}),
    ...(raw.closed_at ? { closedAt: raw.closed_at } : {}),
  };
}

export function createPullWatch(gh: GitHubClient, cache: EtagCache) {
  const repo = repoPath(gh.repo);
  const own = (raw: unknown): OwnPull[] =>
    (raw as RawPull[]).flatMap((pull) => toOwnPull(pull, gh.repo) ?? []);
  /** Base branches whose protection this token may not read (403) or that have none (404): not asked again this run. */
  const unreadableProtection = new Set<string>();

  return {
    /**
     * issueloop's open PRs (every page) and those closed or merged lately (the most recently updated
     * page of closed ones): each page a conditional request.
     */
    async ownPulls(): Promise<OwnPull[]> {
      const open = await getAllPages(
        gh,
        cache,
        `${repo}/pulls?state=open&per_page=100`,
        own,
        'list own pull requests',
      );
      const closed = await getConditional(
        gh,
        cache,
        `${repo}/pulls?state=closed&sort=updated&direction=desc&per_page=100`,
        own,
        'list own closed pull requests',
      );
      return [...open.items, ...closed.data];
    },

    /** The PR's commits (GitHub lists up to 250), each one's author and committer e-mail. */
    async commits(number: number): Promise<PullCommit[]> {
      type Raw = { sha: string; commit: { author?: { email?: string }; committer?: { email?: string } } };
      const all = await getAllPages(
        gh,
        cache,
        `${repo}/pulls/${number}/commits?per_page=100`,
        (raw) =>
          (raw as Raw[]).map((c) => ({
            sha: c.sha,
            authorEmail: c.commit.author?.email ?? '',
            committerEmail: c.commit.committer?.email ?? '',
          })),
        `read the commits of pull request #${number}`,
        3,
      );
      return all.items;
    },

    /** One PR with its mergeability (conditional). */
    async detail(number: number): Promise<PullDetail> {
      const page = await getConditional(
        gh,
        cache,
        `${repo}/pulls/${number}`,
        (raw) => {
          const pull = raw as RawPull;
          const base = toOwnPull(pull, gh.repo);
          if (!base) throw new Error(`pull request #${number} is not on an issueloop/issue-<n> branch`);
          return {
            ...base,
            mergeable: pull.mergeable ?? null,
            mergeableState: pull.mergeable_state ?? 'unknown',
            followups: followupsOf(pull.body),
            answeredReviews: answeredReviewsOf(pull.body),
            reviewComments: pull.review_comments ?? 0,
            ...(pull.merged_by?.login ? { mergedBy: pull.merged_by.login } : {}),
          };
        },
        `read pull request #${number}`,
      );
      return page.data;
    },

    /**
     * The check runs and commit statuses of `sha` (two conditional requests, a page of 100 each; up
     * to ten pages, so no one buries a check under a hundred of their own), judged over those
     * `policy` relies on.
     */
    async checks(sha: string, policy: CheckPolicy): Promise<CheckSummary> {
      const runs = await getAllPages(
        gh,
        cache,
        `${repo}/commits/${sha}/check-runs?filter=all&per_page=100`,
        (raw) => (raw as { check_runs?: RawCheckRun[] }).check_runs ?? [],
        `read the checks of ${sha.slice(0, 7)}`,
        MAX_CHECK_PAGES,
      );
      const statuses = await getAllPages(
        gh,
        cache,
        `${repo}/commits/${sha}/status?per_page=100`,
        (raw) => (raw as { statuses?: RawStatus[] }).statuses ?? [],
        `read the statuses of ${sha.slice(0, 7)}`,
        MAX_CHECK_PAGES,
      );
      return summarizeChecks(latestPerApp(runs.items), latestPerContext(statuses.items), policy);
    },

    /**
     * The base branch's required status checks the token can read (two conditional requests; one
     * once the protection answered 403 or 404).
     */
    requiredChecks(branch: string): Promise<RequiredChecks> {
      return readRequiredChecks(gh, cache, branch, unreadableProtection);
    },
  };
}

export type PullWatch = ReturnType<typeof createPullWatch>;
