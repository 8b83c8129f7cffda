import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import { renderCommitMessage, renderPullRequestBody, renderPullRequestTitle } from '../../github/pr-body.js';
import { issueBranch } from '../../github/pulls.js';
import { commitAll, type GitOptions, pushBranch, remoteBranchSha } from '../../session/git/index.js';
import type { RemoteRef } from '../../session/git/remote.js';
import { type DeliveryInput, ReadBackError } from '../../session/session-work.js';

export interface PublishInput extends DeliveryInput {
  checkout: string;
  /** Resolved once at the start of the run (name, URL, the push's credentials). */
  remote: RemoteRef;
  issue: { number: number; title: string };
  author: { name: string; email: string };
  /** Instead of the issue's (a follow-up's merge of its base). */
  commitMessage?: string;
  /** A follow-up's merge of its base: the commit's second parent. */
  mergeParent?: string;
  base?: string;
  draft: boolean;
  /** A follow-up's number on this PR (its body keeps the count). */
  followups?: number;
  /** The reviews answered so far, this follow-up's included (its body keeps them). */
  answeredReviews?: readonly number[];
  /**
   * A follow-up: the PR it continues and the branch commit it started from. Its push leases against
   * that commit (a reviewer's push meanwhile is never overwritten), and the PR must still be open.
   */
  continues?: { pull: number; from: string };
  /** Put on a PR when it opens: `pr.labels`, and `pr.reviewers` unless they wait for green checks. */
  onOpen?: { labels: readonly string[]; reviewers: readonly string[] };
}

export interface Published {
  commit: string;
  pr: { number: number; url: string; created: boolean };
  /** What could not be put on the new PR (a reviewer who is not a collaborator): the PR stands. */
  warning?: string;
}

/** Why a read-back did not confirm the session's work (seed 004 task 6: never count others' work). */

/**
 * Commits the worktree as the configured author, pushes the branch with `--force-with-lease` against
 * what origin has now (a retry replaces its own earlier push, never someone's newer one), opens or
 * updates the draft PR, then reads the PR and the issue back from GitHub to confirm that this
 * session's commit is what the PR shows.
 */
export async function publish(
  input: PublishInput,
  github: Pick<GitHubAdapter, 'pulls' | 'issues' | 'labels'>,
  redact: Redactor,
  git: GitOptions,
): Promise<Published> {
  const branch = issueBranch(input.issue.number);
  const title = renderPullRequestTitle(input.issue, redact);
  const commit = await commitAll(
    input.worktree,
    {
      message: input.commitMessage ?? renderCommitMessage(input.issue, redact),
      author: input.author,
      ...(input.mergeParent ? { mergeParent: input.mergeParent } : {}),
    },
    git,
  );
  if (commit === undefined) throw new ReadBackError('nothing to commit');
  if (input.continues) {
    const open = await github.pulls.findOpen(branch);
    if (open?.number !== input.continues.pull) {
      throw new ReadBackError(
        `pull request #${input.continues.pull} is no longer open: the follow-up is not pushed`,
      );
    }
  }
  const expected =
    input.continues?.from ?? (await remoteBranchSha(input.checkout, input.remote, branch, git));
  const pushed = await pushBranch(
    input.worktree,
    // The commit just made: pushed by its sha, so HEAD is not resolved a second time.
    { remote: input.remote, branch, expectedRemoteSha: expected, sha: commit },
    git,
  );
  const body = renderPullRequestBody(
    {
      issue: input.issue,
      summary: input.summary,
      filesChanged: input.filesChanged,
      ...(input.verify
        ? {
            verify: {
              command: input.verify.command,
              exitCode: input.verify.exitCode,
              passed: input.verify.passed,
              outputTail: input.verify.output.slice(-2_000),
              durationMs: input.verify.durationMs,
            },
          }
        : {}),
      costUsd: input.costUsd,
      ...(input.followups !== undefined ? { followups: input.followups } : {}),
      ...(input.answeredReviews ? { answeredReviews: input.answeredReviews } : {}),
      model: input.model,
      modelCalls: input.modelCalls,
      toolCalls: input.toolCalls,
      blockedRequests: input.blockedRequests,
      ...(input.blockedOthers ? { blockedOthers: input.blockedOthers } : {}),
      ...(input.chosen ? { chosen: input.chosen } : {}),
    },
    redact,
  );
  const opening = { branch, title, body, draft: input.draft, ...(input.base ? { base: input.base } : {}) };
  // A follow-up's PR was found open just before the push: it is updated by number (the read-back
  // below still checks it is open on this branch).
  const pr = input.continues
    ? await github.pulls.update(input.continues.pull, opening)
    : await github.pulls.openOrUpdate(opening);

  const [readPr, readIssue] = await Promise.all([
    github.pulls.get(pr.number),
    github.issues.get(input.issue.number),
  ]);
  if (readPr.state !== 'open' || readPr.headRef !== branch) {
    throw new ReadBackError(
      `pull request #${pr.number} is ${readPr.state} on ${readPr.headRef}, not open on ${branch}`,
    );
  }
  if (!readPr.body.includes(`Closes #${input.issue.number}`)) {
    throw new ReadBackError(`pull request #${pr.number} does not close #${input.issue.number}`);
  }
  if (readIssue.state !== 'open') {
    throw new ReadBackError(`issue #${input.issue.number} was closed while the session worked on it`);
  }
  const published: Published = {
    commit: pushed,
    pr: { number: pr.number, url: pr.url, created: pr.created },
  };
  if (pr.created && input.onOpen) {
    const warning = await dressNewPull(github, pr.number, input.onOpen, redact);
    if (warning) published.warning = warning;
  }
  return published;
}

/** Labels and reviewers on a PR just opened; a refusal is returned, not thrown (the PR stands). */
async function dressNewPull(
  github: Pick<GitHubAdapter, 'pulls' | 'labels'>,
  number: number,
  onOpen: NonNullable<PublishInput['onOpen']>,
  redact: Redactor,
): Promise<string | undefined> {
  try {
    if (onOpen.labels.length > 0) await github.labels.addLabels(number, [...onOpen.labels]);
    await github.pulls.requestReviewers(number, onOpen.reviewers);
    return undefined;
  } catch (err) {
    return `labels or reviewers not added: ${redact((err as Error).message)}`;
  }
}
