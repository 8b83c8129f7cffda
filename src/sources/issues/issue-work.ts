import { type LastFailure, renderFirstMessage } from '../../agent/first-message.js';
import type { Config } from '../../config/schema.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import type { BacklogIssue } from '../../github/issue-shape.js';
import { issueBranch } from '../../github/pulls.js';
import { sanitizeIssueText } from '../../github/sanitize.js';
import { fetchBranch } from '../../session/git/index.js';
import type { RemoteRef } from '../../session/git/remote.js';
import type { SessionWork } from '../../session/session-work.js';
import { baseMerge } from './base-merge.js';
import {
  answeredAfter,
  answerThreads,
  describeAnswers,
  type FollowUp,
  followUpKind,
  renderFollowUp,
} from './follow-up.js';
import { needsPlan, type PlanStage, planNote, planStep, readPlanStage } from './plan-stage.js';
import { publish } from './publish.js';

export interface IssueWorkOptions {
  github: Pick<GitHubAdapter, 'pulls' | 'issues' | 'reviewThreads' | 'labels' | 'plans' | 'commands'>;
  checkout: string;
  /** Resolved once at the start of the run (name, URL, the push's credentials). */
  remote: RemoteRef;
  baseBranch: string;
  config: Pick<Config, 'pr' | 'plan'>;
  redact: Redactor;
}

/** The last failure's message is untrusted (verify output is the agent's code's): hidden text goes. */
function sanitizedFailure(failure: LastFailure | undefined): LastFailure | undefined {
  return failure && { errorClass: failure.errorClass, message: sanitizeIssueText(failure.message).text };
}

/**
 * A GitHub issue as a session's work: branch `issueloop/issue-<n>` from the freshly fetched base, the
 * first message `Issue #<n>: <title>` then the sanitised body, and delivery as a pushed branch with a
 * draft PR that closes the issue, read back from GitHub. A follow-up (its PR's checks failed, or
 * reviewers asked for changes) continues the PR's branch, its first message adds what to do, and it
 * pushes to the same PR, then answers the review threads it was given.
 */
export function issueWork(issue: BacklogIssue, options: IssueWorkOptions, followUp?: FollowUp): SessionWork {
  const { config } = options;
  /** The PR branch's commit a follow-up started from: its push replaces that one or fails. */
  let startedFrom: string | undefined;
  const merge = followUp?.base ? baseMerge(followUp, { ...options, author: config.pr.author }) : undefined;
  /** Where its plan stands (read when the session starts), for an issue that needs one. */
  let stage: PlanStage | undefined;
  return {
    key: issue.number,
    subject: 'issue',
    branch: issueBranch(issue.number),
    worktreeName: `issue-${issue.number}`,
    task: `Issue #${issue.number}: ${issue.title}`,
    rawBody: issue.body,
    firstMessage: (resume) => {
      const message = renderFirstMessage({
        number: issue.number,
        title: issue.title,
        body: sanitizeIssueText(issue.body).text,
        interruptedContext: resume?.interruptedContext,
        hint: resume?.hint,
        // A follow-up has its own inputs (the failing checks, the reviews).
        lastFailure: followUp ? undefined : sanitizedFailure(resume?.lastFailure),
      });
      if (stage) return `${message}\n\n${planNote(stage)}`;
      return followUp ? `${message}\n\n${renderFollowUp(followUp, merge?.result())}` : message;
    },
    // Only an issue that needs a plan can be a plan session: best-of-N asks before its attempts, at
    // the cost of reading the start point once more, and every other issue answers without it.
    ...(!followUp && needsPlan(issue, config)
      ? {
          planOnly: () =>
            stage && stage.kind !== 'approved'
              ? planStep(options.github, issue.number, config, options.redact)
              : undefined,
        }
      : {}),
    ...(merge ? { prepare: merge.prepare, unfinished: merge.unfinished } : {}),
    // A follow-up continues the PR's branch; a first attempt starts from the freshly fetched base.
    async startPoint(git) {
      if (!followUp && needsPlan(issue, config)) stage = await readPlanStage(options.github, issue.number);
      const branch = followUp ? issueBranch(issue.number) : options.baseBranch;
      const sha = await fetchBranch(options.checkout, options.remote, branch, git);
      if (followUp) startedFrom = sha;
      return sha;
    },
    // Setup's registries come from the PR's base, never from the agent's branch.
    ...(followUp
      ? { setupBase: (git) => fetchBranch(options.checkout, options.remote, followUp.pull.baseRef, git) }
      : {}),
    async deliver(input, git) {
      // A clean merge of the base the harness made alone (no model call) is not one of the
      // pr.max_followups sessions: it costs nothing, and a busy base must not use them up.
      const merged = merge?.result();
      const harnessOnly = merged?.conflicted.length === 0 && input.modelCalls === 0;
      const followups = followUp ? followUp.pull.followups + (harnessOnly ? 0 : 1) : undefined;
      const published = await publish(
        {
          ...input,
          checkout: options.checkout,
          remote: options.remote,
          issue,
          author: config.pr.author,
          ...(merge ? { commitMessage: merge.message(issue.number) } : {}),
          ...(merged ? { mergeParent: merged.sha } : {}),
          ...(config.pr.base ? { base: config.pr.base } : {}),
          draft: config.pr.draft,
          ...(followUp ? { followups: followups ?? 0, answeredReviews: answeredAfter(followUp) } : {}),
          ...(followUp && startedFrom
            ? { continues: { pull: followUp.pull.number, from: startedFrom } }
            : {}),
          onOpen: {
            labels: config.pr.labels,
            reviewers: config.pr.ready_when_green ? [] : config.pr.reviewers,
          },
        },
        options.github,
        options.redact,
        git,
      );
      if (!followUp) {
        const warned = published.warning ? ` (${published.warning})` : '';
        return { ...published, reason: `draft PR #${published.pr.number}${warned}` };
      }
      const which = harnessOnly ? 'the harness alone' : `follow-up ${followups}`;
      let reason = `pushed to PR #${published.pr.number} (${which}: ${followUpKind(followUp)})`;
      if (followUp.reviews.length > 0) {
        const replies = await answerThreads(options.github.reviewThreads, followUp, {
          commit: published.commit,
          filesChanged: input.filesChanged,
          resolve: config.pr.resolve_threads,
          redact: options.redact,
        });
        reason += `; ${describeAnswers(replies)}`;
      }
      return { ...published, reason };
    },
  };
}
