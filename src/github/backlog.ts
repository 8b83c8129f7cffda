import { type GitHubClient, repoPath } from './client.js';
import { getAllPages } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { type BacklogIssue, sameLabel, toBacklogIssue } from './issue-shape.js';

/**
 * The backlog: open issues carrying the trigger label, pull requests and excluded labels dropped,
 * ordered by the configured priority labels, then oldest first. Every page is a conditional
 * request, so a round over an unchanged backlog costs nothing against the rate limit.
 */
export interface BacklogOptions {
  label: string;
  excludeLabels: readonly string[];
  priorityLabels: readonly string[];
}

export interface Backlog {
  issues: BacklogIssue[];
  /** Labelled issues left out, with why (`pull request` or the excluding label). */
  skipped: Array<{ number: number; reason: string }>;
  pages: number;
  notModified: number;
}

export function backlogUrl(gh: GitHubClient, label: string): string {
  const query = new URLSearchParams({
    labels: label,
    state: 'open',
    sort: 'created',
    direction: 'asc',
    per_page: '100',
  });
  return `${repoPath(gh.repo)}/issues?${query}`;
}

/** The index of the first priority label an issue carries; issues without one come after all. */
export function priorityRank(issue: BacklogIssue, priorityLabels: readonly string[]): number {
  const rank = priorityLabels.findIndex((p) => issue.labels.some((l) => sameLabel(l, p)));
  return rank === -1 ? priorityLabels.length : rank;
}

export function orderBacklog(
  issues: readonly BacklogIssue[],
  priorityLabels: readonly string[],
): BacklogIssue[] {
  return [...issues].sort(
    (a, b) =>
      priorityRank(a, priorityLabels) - priorityRank(b, priorityLabels) ||
      a.createdAt.localeCompare(b.createdAt) ||
      a.number - b.number,
  );
}

function reducePage(raw: unknown): BacklogIssue[] {
  if (!Array.isArray(raw)) throw new TypeError('expected an array of issues');
  return raw.map(toBacklogIssue);
}

export async function listBacklog(
  gh: GitHubClient,
  cache: EtagCache,
  options: BacklogOptions,
): Promise<Backlog> {
  const listing = await getAllPages(gh, cache, backlogUrl(gh, options.label), reducePage, 'list the backlog');
  const issues: BacklogIssue[] = [];
  const skipped: Backlog['skipped'] = [];
  for (const issue of listing.items) {
    const excluded = options.excludeLabels.find((x) => issue.labels.some((l) => sameLabel(l, x)));
    if (issue.isPullRequest) skipped.push({ number: issue.number, reason: 'pull request' });
    else if (excluded) skipped.push({ number: issue.number, reason: `label ${excluded}` });
    else issues.push(issue);
  }
  return {
    issues: orderBacklog(issues, options.priorityLabels),
    skipped,
    pages: listing.pages,
    notModified: listing.notModified,
  };
}
