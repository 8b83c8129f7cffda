import type { Config } from '../../config/schema.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import { isGitHubError } from '../../github/github-error.js';
import { type BacklogIssue, sameLabel } from '../../github/issue-shape.js';

/**
 * `run --issue N`: the issues a maintainer named at the terminal, worked now whether or not they
 * carry the trigger label (naming one is the maintainer saying "work this", as the label is), still
 * through the trust gate, the claims and everything else a round plans with.
 */

export interface NamedIssues {
  /** Open issues that may be worked, in the order named. */
  issues: BacklogIssue[];
  /** Why each of the others cannot be: closed, a pull request, missing, excluded by a label. */
  refused: string[];
}

/** Reads each named issue as it is now (never from the ETag cache). */
export async function readNamedIssues(
  github: GitHubAdapter,
  config: Pick<Config, 'exclude_labels'>,
  numbers: readonly number[],
): Promise<NamedIssues> {
  const out: NamedIssues = { issues: [], refused: [] };
  const slug = `${github.client.repo.owner}/${github.client.repo.name}`;
  for (const number of numbers) {
    let issue: Awaited<ReturnType<GitHubAdapter['issues']['get']>>;
    try {
      issue = await github.issues.get(number);
    } catch (err) {
      if (!isGitHubError(err, 'not_found')) throw err;
      out.refused.push(`#${number} does not exist in ${slug}`);
      continue;
    }
    const excluded = config.exclude_labels.find((x) => issue.labels.some((l) => sameLabel(l, x)));
    if (issue.isPullRequest) out.refused.push(`#${number} is a pull request, not an issue`);
    else if (issue.state === 'closed') out.refused.push(`#${number} is closed: reopen it to have it worked`);
    else if (excluded) {
      out.refused.push(
        `#${number} carries "${excluded}", one of exclude_labels: remove the label to have it worked`,
      );
    } else out.issues.push(issue);
  }
  return out;
}

/**
 * The backlog of a run over named issues: each is worked at most once, and the run ends when none
 * is left (the caller sets `empty_rounds: 1`, so no empty round is waited out).
 */
export function namedBacklog(
  github: GitHubAdapter,
  config: Pick<Config, 'exclude_labels'>,
  numbers: readonly number[],
) {
  const started = new Set<number>();
  return {
    list: async (): Promise<BacklogIssue[]> => {
      const left = numbers.filter((n) => !started.has(n));
      return left.length === 0 ? [] : (await readNamedIssues(github, config, left)).issues;
    },
    started: (issue: number) => {
      started.add(issue);
    },
  };
}
