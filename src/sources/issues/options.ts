import type { OutcomeStore } from '../../claims/outcome-store.js';
import type { Config } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { Log } from '../../core/logger.js';
import type { Redactor } from '../../core/redact.js';
import type { GitHubAdapter } from '../../github/adapter.js';
import type { IssueComment } from '../../github/comment-commands.js';
import type { RemoteRef } from '../../session/git/remote.js';

/** What the issue source and its trackers are built from (one per run). */
export interface IssueSourceOptions {
  github: GitHubAdapter;
  config: Config;
  redact: Redactor;
  checkout: string;
  /** Resolved once at the start of the run (name, URL, the push's credentials). */
  remote: RemoteRef;
  baseBranch: string;
  log: Log;
  /** `sleep` holds back a tracking-comment edit that the next one would replace within a second. */
  clock: Pick<Clock, 'now' | 'sleep'>;
  /** Work follow-ups of issueloop's PRs only: the run a pull request's event started. */
  followUpsOnly?: boolean;
  /**
   * The comment whose command started the run (the action's `issue_comment` event): the command
   * sweep works it alone instead of reading the repository's new comments.
   */
  command?: IssueComment;
  /** Claim nothing, for this reason (the action's run for `/issueloop stop`: the command, no session). */
  claimNothing?: string;
  /** Where each issue's sessions and its PR's fate are kept (beside the claims); none: not kept. */
  outcomes?: OutcomeStore;
  /** `run --issue N`: these issues, labelled or not, each once, instead of the labelled backlog. */
  issues?: readonly number[];
}
