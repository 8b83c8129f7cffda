import type {
  AuthorAssociation,
  CheckConclusion,
  CheckStatus,
  RepoRole,
  ReviewState,
  TokenKind,
} from './types.js';

/** The emulator's internal state, kept apart from the JSON shapes the API hands out. */

export interface UserRecord {
  id: number;
  nodeId: string;
  login: string;
  type: 'User' | 'Bot' | 'Organization';
}

export interface TokenRecord {
  login: string;
  kind: TokenKind;
  scopes: string[];
  clientId?: string;
  /**
   * Epoch ms after which GitHub answers `Bad credentials` (an App's installation tokens, a PAT with an
   * expiry); a PAT's is also sent in `github-authentication-token-expiration`.
   */
  expiresAt?: number;
  /** An App installation token's permissions (`organization_projects: 'write'` reaches org boards). */
  permissions?: Readonly<Record<string, string>>;
}

/** Classic PATs and OAuth tokens carry scopes; fine-grained and installation tokens permissions. */
export function hasScopes(token: Pick<TokenRecord, 'kind'>): boolean {
  return token.kind === 'classic' || token.kind === 'oauth';
}

export interface LabelRecord {
  id: number;
  nodeId: string;
  name: string;
  color: string;
  description: string | null;
}

export interface PullRecord {
  id: number;
  headRef: string;
  headLabel: string;
  baseRef: string;
  draft: boolean;
  /** The commits last seen at the branches' tips; kept once the PR is closed, as GitHub keeps them. */
  shas?: { head: string; base: string };
  merged?: { at: string; by: string; sha: string };
  /** Logins asked for a review, in the order asked. */
  requestedReviewers?: string[];
}

export interface IssueRecord {
  number: number;
  id: number;
  nodeId: string;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'not_planned' | 'reopened' | null;
  author: string;
  authorAssociation: AuthorAssociation;
  /** Lower-cased keys into the repository's labels, in the order they were added. */
  labels: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** The last edit of the body (GraphQL `lastEditedAt`, `editor`); a title change is a `renamed` event instead. */
  lastEditedAt?: string;
  editor?: string;
  pull?: PullRecord;
  /** GitHub's issue dependencies: the numbers of the issues this one is blocked by, in the order added. */
  blockedBy?: number[];
}

export interface CommentRecord {
  id: number;
  nodeId: string;
  issueNumber: number;
  author: string;
  authorAssociation: AuthorAssociation;
  body: string;
  createdAt: string;
  updatedAt: string;
}

/** A reaction on an issue comment; one per user and content, as on GitHub. */
export interface ReactionRecord {
  id: number;
  commentId: number;
  user: string;
  content: string;
  createdAt: string;
}

export interface EventRecord {
  id: number;
  nodeId: string;
  issueNumber: number;
  event: 'labeled' | 'unlabeled' | 'closed' | 'reopened' | 'renamed' | 'merged';
  actor: string;
  /** `merged`, and `closed` when a merge closed the issue: the merge commit. */
  commitId?: string;
  label?: { name: string; color: string };
  rename?: { from: string; to: string };
  createdAt: string;
}

export interface OptionRecord {
  id: string;
  name: string;
  color: string;
  description: string;
}

export interface FieldRecord {
  id: string;
  name: string;
  options: OptionRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface ItemRecord {
  id: string;
  contentId: string;
  /** Field id → option id. */
  values: Map<string, string>;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectRecord {
  id: string;
  number: number;
  title: string;
  owner: string;
  closed: boolean;
  createdAt: string;
  updatedAt: string;
  fields: FieldRecord[];
  items: ItemRecord[];
}

export interface AnnotationRecord {
  path: string;
  startLine: number;
  endLine: number;
  level: 'notice' | 'warning' | 'failure';
  message: string;
  title: string | null;
}

/** A check run of the GitHub Actions app; its id is also its job's id, as on GitHub. */
export interface CheckRunRecord {
  id: number;
  nodeId: string;
  /** The workflow run (and check suite) it belongs to. */
  runId: number;
  headSha: string;
  name: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  startedAt: string;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: AnnotationRecord[];
  /** The job's log; a check run without one has no downloadable log. */
  log?: string;
  /** The GitHub App that created it, by slug: GitHub Actions when absent. */
  app?: string;
}

export interface StatusRecord {
  id: number;
  nodeId: string;
  sha: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  targetUrl: string | null;
  creator: string;
  createdAt: string;
}

export interface ReviewRecord {
  id: number;
  nodeId: string;
  pullNumber: number;
  author: string;
  authorAssociation: AuthorAssociation;
  state: ReviewState;
  body: string;
  submittedAt: string;
  commitId: string;
}

/** A line comment of a review; a thread is a top-level one and the replies to it. */
export interface ReviewCommentRecord {
  id: number;
  nodeId: string;
  pullNumber: number;
  reviewId: number;
  /** Replies only: the thread's top-level comment. */
  inReplyTo?: number;
  path: string;
  line: number;
  side: 'LEFT' | 'RIGHT';
  body: string;
  author: string;
  authorAssociation: AuthorAssociation;
  commitId: string;
  diffHunk: string;
  createdAt: string;
  updatedAt: string;
  /** Top-level comments only: who resolved the thread, while it is resolved. */
  resolvedBy?: string;
}

export const ROLE_RANK: Record<RepoRole, number> = {
  none: 0,
  read: 1,
  triage: 2,
  write: 3,
  maintain: 4,
  admin: 5,
};
