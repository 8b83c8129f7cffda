import { type CommentCommand, type IssueComment, parseCommand } from '../github/comment-commands.js';
import { sanitizeIssueTitle } from '../github/issue-title.js';
import { issueOfBranch } from '../github/own-branch.js';
import type { ActionMode } from './inputs.js';

/**
 * What a workflow run should do, decided from the event that started it and the `mode` input:
 * a maintainer's trigger label on one issue works that issue; a command in a new comment
 * (`/issueloop retry|stop|plan`, `/approve`, `/revise`) runs that issue's round for it; CI
 * completing, a review or the PR closing on issueloop's own branch runs that issue's round (its sweep
 * follows the PR up); a schedule or a manual dispatch drains the backlog; anything else is a notice
 * and a green run without work, so a workflow listening to more events than it needs costs nothing.
 */
export interface Actor {
  login: string;
  /** `User`, `Bot` or `Organization`, as the payload's `sender.type`. */
  type: string;
}

export type Decision =
  | {
      kind: 'issue';
      issue: number;
      title: string;
      actor: Actor;
      /**
       * Set when the event is about issueloop's PR for the issue (CI completed, a review, the PR
       * closed): the round's sweep decides what it needs, and the actor is not the one vouching.
       */
      pullEvent?: string;
      /** Set when a new comment gives a command: the round carries it out (see command-event.ts). */
      command?: CommandEvent;
    }
  | { kind: 'drain' }
  | { kind: 'skip'; why: string };

/** A command in the comment that started the run, as the command sweep reads comments. */
export interface CommandEvent {
  name: CommentCommand;
  comment: IssueComment;
  /**
   * The comment is on a pull request (the decision's `issue` is the PR's number until the run asks
   * which issue that PR is issueloop's for: the payload has no head ref).
   */
  onPull: boolean;
}

export interface ActionEvent {
  name: string;
  payload: unknown;
}

interface LabeledPayload {
  action?: unknown;
  label?: { name?: unknown } | null;
  issue?: { number?: unknown; title?: unknown; pull_request?: unknown } | null;
  sender?: { login?: unknown; type?: unknown } | null;
}

function sameLabel(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function issueDecision(payload: LabeledPayload, label: string): Decision {
  if (payload.action !== 'labeled') {
    return { kind: 'skip', why: `issues event "${String(payload.action)}": only "labeled" starts work` };
  }
  const applied = typeof payload.label?.name === 'string' ? payload.label.name : '';
  if (!sameLabel(applied, label)) {
    return { kind: 'skip', why: `label "${applied}" is not the trigger label "${label}"` };
  }
  const number = payload.issue?.number;
  const login = payload.sender?.login;
  if (typeof number !== 'number' || typeof login !== 'string') {
    return { kind: 'skip', why: 'the event payload names no issue or no sender' };
  }
  if (payload.issue?.pull_request) {
    return { kind: 'skip', why: `#${number} is a pull request; issueloop works issues` };
  }
  return {
    kind: 'issue',
    issue: number,
    // The payload's title names the log group: sanitised like every title read through the API.
    title: typeof payload.issue?.title === 'string' ? sanitizeIssueTitle(payload.issue.title) : '',
    actor: { login, type: typeof payload.sender?.type === 'string' ? payload.sender.type : 'User' },
  };
}

/** Every command a comment can give, as the skip notice for any other comment lists them. */
const COMMAND_LIST = '/issueloop retry|stop|plan, /approve or /revise';

interface CommentPayload extends LabeledPayload {
  comment?: { id?: unknown; body?: unknown; user?: { login?: unknown } | null; updated_at?: unknown } | null;
}

/**
 * A new comment whose first line is a command: that issue's (or that PR's) round. Any other comment
 * starts nothing, so a workflow on every comment costs a runner only for commands (its `if:` saves
 * even that). Who may command is checked when the run starts (writers only) and again by the sweep.
 */
function commentDecision(payload: CommentPayload): Decision {
  if (payload.action !== 'created') {
    return { kind: 'skip', why: `issue_comment event "${String(payload.action)}": only "created" is read` };
  }
  const body = typeof payload.comment?.body === 'string' ? payload.comment.body : '';
  const name = parseCommand(body);
  if (!name) return { kind: 'skip', why: `the comment gives no command (${COMMAND_LIST})` };
  const number = payload.issue?.number;
  const id = payload.comment?.id;
  const login = payload.sender?.login;
  if (typeof number !== 'number' || typeof id !== 'number' || typeof login !== 'string') {
    return { kind: 'skip', why: 'the event payload names no issue, no comment or no sender' };
  }
  const onPull = Boolean(payload.issue?.pull_request);
  const author = typeof payload.comment?.user?.login === 'string' ? payload.comment.user.login : login;
  const updatedAt = typeof payload.comment?.updated_at === 'string' ? payload.comment.updated_at : '';
  return {
    kind: 'issue',
    issue: number,
    // A PR's title is not its issue's: the run names the issue once it knows which.
    title: !onPull && typeof payload.issue?.title === 'string' ? sanitizeIssueTitle(payload.issue.title) : '',
    actor: { login, type: typeof payload.sender?.type === 'string' ? payload.sender.type : 'User' },
    command: { name, comment: { id, number, author, body, updatedAt }, onPull },
  };
}

interface PullEventPayload {
  action?: unknown;
  repository?: { full_name?: unknown } | null;
  sender?: { login?: unknown; type?: unknown } | null;
  check_suite?: { head_branch?: unknown; pull_requests?: unknown } | null;
  workflow_run?: { head_branch?: unknown; head_repository?: { full_name?: unknown } | null } | null;
  pull_request?: { head?: { ref?: unknown; repo?: { full_name?: unknown } | null } | null } | null;
}

/** The event, its wanted action, and where its branch (and the branch's repository) are. */
const PULL_EVENTS: Record<
  string,
  { action: string; branch(p: PullEventPayload): unknown; repo(p: PullEventPayload): unknown }
> = {
  check_suite: {
    action: 'completed',
    branch: (p) => p.check_suite?.head_branch,
    // GitHub lists only the repository's own PRs in `pull_requests`; a fork's suite has none.
    repo: (p) =>
      Array.isArray(p.check_suite?.pull_requests) && p.check_suite.pull_requests.length > 0
        ? p.repository?.full_name
        : 'a fork (no pull request of this repository)',
  },
  workflow_run: {
    action: 'completed',
    branch: (p) => p.workflow_run?.head_branch,
    repo: (p) => p.workflow_run?.head_repository?.full_name,
  },
  pull_request_review: {
    action: 'submitted',
    branch: (p) => p.pull_request?.head?.ref,
    repo: (p) => p.pull_request?.head?.repo?.full_name,
  },
  pull_request: {
    action: 'closed',
    branch: (p) => p.pull_request?.head?.ref,
    repo: (p) => p.pull_request?.head?.repo?.full_name,
  },
};

/**
 * CI completing, a review submitted or the PR closed, on one of issueloop's own branches (of this
 * repository, not a fork's): that issue's round, whose sweep sees what the PR needs.
 */
function pullDecision(name: string, payload: PullEventPayload): Decision {
  const event = PULL_EVENTS[name];
  if (!event) return { kind: 'skip', why: `event "${name}" starts no work` };
  if (payload.action !== event.action) {
    return {
      kind: 'skip',
      why: `${name} event "${String(payload.action)}": only "${event.action}" is followed`,
    };
  }
  const branch = event.branch(payload);
  const issue = issueOfBranch(branch);
  if (issue === undefined) {
    return { kind: 'skip', why: `${name} on ${String(branch)}: not an issueloop/issue-<n> branch` };
  }
  const repo = event.repo(payload);
  const home = payload.repository?.full_name;
  if (typeof repo === 'string' && typeof home === 'string' && repo.toLowerCase() !== home.toLowerCase()) {
    return { kind: 'skip', why: `${name} on ${branch} of ${repo}: a fork's branch, not issueloop's` };
  }
  const login = payload.sender?.login;
  return {
    kind: 'issue',
    issue,
    title: '',
    actor: {
      login: typeof login === 'string' ? login : 'github',
      type: typeof payload.sender?.type === 'string' ? payload.sender.type : 'Bot',
    },
    pullEvent: `${name} ${event.action}`,
  };
}

export function decide(event: ActionEvent, mode: ActionMode, label: string): Decision {
  const payload = (event.payload ?? {}) as LabeledPayload;
  const isIssues = event.name === 'issues';
  if (mode === 'drain') return { kind: 'drain' };
  if (event.name === 'issue_comment') return commentDecision(payload);
  if (mode === 'issue') {
    return isIssues
      ? issueDecision(payload, label)
      : {
          kind: 'skip',
          why: `mode "issue" needs an issues or issue_comment event, this run was started by "${event.name}"`,
        };
  }
  if (isIssues) return issueDecision(payload, label);
  if (event.name === 'schedule' || event.name === 'workflow_dispatch') return { kind: 'drain' };
  if (event.name in PULL_EVENTS) return pullDecision(event.name, payload as PullEventPayload);
  return {
    kind: 'skip',
    why: `event "${event.name}" starts no work: use issues (labeled), issue_comment (created, for commands), schedule, workflow_dispatch, or check_suite, workflow_run, pull_request_review and pull_request on issueloop's PRs`,
  };
}
