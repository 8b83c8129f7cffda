import { sanitizeIssueTitle } from '../github/issue-title.js';
import type { ActionMode } from './inputs.js';

/**
 * What a workflow run should do, decided from the event that started it and the `mode` input:
 * a maintainer's trigger label on one issue works that issue; a schedule or a manual dispatch drains
 * the backlog; anything else is a notice and a green run without work, so a workflow listening to
 * more events than it needs costs nothing.
 */
export interface Actor {
  login: string;
  /** `User`, `Bot` or `Organization`, as the payload's `sender.type`. */
  type: string;
}

export type Decision =
  | { kind: 'issue'; issue: number; title: string; actor: Actor }
  | { kind: 'drain' }
  | { kind: 'skip'; why: string };

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

export function decide(event: ActionEvent, mode: ActionMode, label: string): Decision {
  const payload = (event.payload ?? {}) as LabeledPayload;
  const isIssues = event.name === 'issues';
  if (mode === 'drain') return { kind: 'drain' };
  if (mode === 'issue') {
    return isIssues
      ? issueDecision(payload, label)
      : { kind: 'skip', why: `mode "issue" needs an issues event, this run was started by "${event.name}"` };
  }
  if (isIssues) return issueDecision(payload, label);
  if (event.name === 'schedule' || event.name === 'workflow_dispatch') return { kind: 'drain' };
  return {
    kind: 'skip',
    why: `event "${event.name}" starts no work: use issues (labeled), schedule or workflow_dispatch`,
  };
}
