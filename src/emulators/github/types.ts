import type { EmulatorRequest, GitRequest } from './request-log.js';
import type { CommentJson, IssueJson, PullJson } from './rest-shapes.js';

export type { EmulatorRequest, GitRequest } from './request-log.js';
export type {
  CommentJson,
  EventJson,
  IssueJson,
  LabelJson,
  PullJson,
  PullSimpleJson,
  UserJson,
} from './rest-shapes.js';

/** `oauth`: an OAuth app's token, such as `gh auth login` makes; it has scopes like a classic one. */
export type TokenKind = 'classic' | 'fine-grained' | 'installation' | 'oauth';
export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';
export type AuthorAssociation =
  | 'OWNER'
  | 'MEMBER'
  | 'COLLABORATOR'
  | 'CONTRIBUTOR'
  | 'FIRST_TIME_CONTRIBUTOR'
  | 'NONE';

export interface GitHubEmulatorOptions {
  owner?: string;
  ownerType?: 'Organization' | 'User';
  repo?: string;
  /** REST routes are relative to it (a path prefix such as `/api/v3` works); GraphQL is at `${baseUrl}/graphql`. */
  baseUrl?: string;
  /** Epoch milliseconds, for timestamps and the rate-limit window. */
  now?: () => number;
  /** Hourly limits per resource. */
  rateLimit?: { core?: number; graphql?: number };
  private?: boolean;
  /**
   * A bare git repository standing for GitHub's copy: pull requests then carry the real commits of
   * its branches, their mergeability is computed with `git merge-tree`, and merging really merges.
   */
  origin?: string;
}

export interface TokenOptions {
  login: string;
  kind: TokenKind;
  /** Only classic and OAuth tokens have scopes; they are reported in `x-oauth-scopes`. */
  scopes?: string[];
  /** An OAuth token's app, reported in `x-oauth-client-id` (gh's is `178c6fc778ccc68e1d6a`). */
  clientId?: string;
  /** When a PAT expires, reported in `github-authentication-token-expiration` (ISO 8601). */
  expiresAt?: string;
}

/** A GitHub App as a test registers it: its public key (the test keeps the private one) and installations. */
export interface SeedApp {
  id: number;
  clientId?: string;
  slug: string;
  name?: string;
  publicKeyPem: string;
  /** An installation on the emulated repository's owner is the repository's installation. */
  installations: Array<{ id: number; account: string; suspended?: boolean }>;
  /** How long a minted installation token lasts (GitHub: one hour). */
  tokenLifetimeMs?: number;
  /** The permissions its installation tokens carry (default: what issueloop needs, org Projects included). */
  permissions?: Record<string, string>;
}

export interface SeedIssue {
  title: string;
  body?: string;
  author: string;
  authorAssociation?: AuthorAssociation;
  labels?: string[];
  /** ISO 8601; also the time of the initial `labeled` events. */
  createdAt?: string;
  /** Actor of the `labeled` events for the initial labels; the author by default. */
  labeledBy?: string;
}

export interface SeedComment {
  author: string;
  body: string;
  authorAssociation?: AuthorAssociation;
}

export interface SeedProject {
  title: string;
  number?: number;
  /** Options of the `Status` single-select field; Todo, In Progress, Done by default. */
  statusOptions?: string[];
  /** Login of the owning organization or user; the repository owner by default. */
  owner?: string;
}

export type CheckStatus = 'queued' | 'in_progress' | 'completed';
export type CheckConclusion =
  | 'success'
  | 'failure'
  | 'neutral'
  | 'cancelled'
  | 'timed_out'
  | 'action_required'
  | 'skipped';
export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface SeedAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

/** A GitHub Actions check run; `ref` (a branch) or `sha` says which commit it ran on. */
export interface SeedCheckRun {
  /** A branch: the run is on its current head commit (from `origin`, or the stand-in sha). */
  ref?: string;
  sha?: string;
  name: string;
  status: CheckStatus;
  /** Required when completed, as on GitHub; a conclusion alone means completed. */
  conclusion?: CheckConclusion;
  output?: { title: string; summary: string; text?: string };
  annotations?: SeedAnnotation[];
  /** The job's log, served by `GET /actions/jobs/{id}/logs` (the check run id is the job id). */
  log?: string;
  /** The GitHub App that created it, by slug (its id: `emulatedAppId`); GitHub Actions by default. */
  app?: string;
}

/** A required status check: its name and the app that must provide it (null or -1: any). */
export interface SeedRequiredCheck {
  context: string;
  app_id?: number | null;
}

/** As GitHub's update-a-check-run: annotations are appended, a conclusion completes the run. */
export type CheckRunChanges = Partial<Omit<SeedCheckRun, 'ref' | 'sha' | 'app'>>;

export interface SeedStatus {
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description?: string;
  target_url?: string;
  /** Who posted it; the default token's user otherwise. */
  creator?: string;
}

export interface SeedReviewComment {
  path: string;
  /** A line of the file: of the head's version on the RIGHT side (the default), the base's on the LEFT. */
  line: number;
  body: string;
  side?: 'LEFT' | 'RIGHT';
}

export interface SeedReview {
  author: string;
  state: ReviewState;
  body?: string;
  authorAssociation?: AuthorAssociation;
  /** Each one opens a review thread. */
  comments?: SeedReviewComment[];
}

export interface ProjectSnapshot {
  id: string;
  number: number;
  title: string;
  url: string;
  owner: string;
  fields: Array<{ id: string; name: string; options: Array<{ id: string; name: string }> }>;
  /** The options of the `Status` field, in board order. */
  options: Array<{ id: string; name: string }>;
  items: Array<{ itemId: string; contentId: string; issueNumber: number; status?: string }>;
}

export interface RestFault {
  method?: string;
  /** Matched against the path and query relative to the base URL. */
  path: string | RegExp;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** How many matching requests fail (1 by default); 0 cancels pending faults with the same matcher. */
  times?: number;
}

export interface GraphqlFault {
  /** Matched against the operation name, or else the query text. */
  operation?: string | RegExp;
  errors: Array<{ type?: string; message: string }>;
  status?: number;
  /** As for REST faults: 0 cancels pending faults with the same matcher. */
  times?: number;
}

export interface ListeningEmulator {
  /** The base URL to give a client, e.g. `http://127.0.0.1:40123`. */
  url: string;
  close(): Promise<void>;
}

export interface GitHubEmulator {
  readonly owner: string;
  readonly repo: string;
  readonly baseUrl: string;
  fetch: typeof globalThis.fetch;
  listen(): Promise<ListeningEmulator>;
  /**
   * Git over smart HTTP for `origin` on a free loopback port, checking each request's token as
   * GitHub does; `url` is the repository's clone URL. Requires the `origin` option.
   */
  serveGit(): Promise<ListeningEmulator>;
  /** Every request the git server answered, with the token it carried; live, like `requests`. */
  readonly gitRequests: GitRequest[];

  addToken(token: string, options: TokenOptions): void;
  /** GitHub forgets the token (revoked, or an App's that expired): REST, GraphQL and git refuse it. */
  revokeToken(token: string): void;
  /** Registers a GitHub App; its bot user `<slug>[bot]` has an id of its own (not the App id). */
  addApp(app: SeedApp): { botLogin: string; botId: number };
  /** Suspends (or with `false` unsuspends) an App installation, as an organisation owner would. */
  suspendInstallation(id: number, suspended?: boolean): void;
  addUser(login: string, options?: { type?: 'User' | 'Bot' }): void;
  setPermission(login: string, role: RepoRole): void;
  addLabel(name: string, color?: string): void;
  addIssue(issue: SeedIssue): number;
  labelIssue(number: number, label: string, actor: string): void;
  unlabelIssue(number: number, label: string, actor: string): void;
  /** As `actor` would through the web or the API: a title change is a `renamed` event, a body change sets `editor`. */
  editIssue(number: number, changes: { title?: string; body?: string }, actor: string): void;
  addComment(number: number, comment: SeedComment): number;
  /** GitHub's issue dependencies: `number` is blocked by `blocker` (its summary counts open blockers). */
  blockIssue(number: number, blocker: number): void;
  addProject(project: SeedProject): { id: string; number: number };
  /**
   * Merges as `actor` would through the web (a draft is merged as if marked ready first): the PR is
   * closed and merged, `Closes #N` issues are closed. With `origin`, the base branch really moves;
   * a conflict throws. Returns the merge commit's sha.
   */
  mergePull(number: number, actor: string, options?: { method?: MergeMethod }): string;
  closePull(number: number, actor: string): void;
  /** Branch protection on `branch` that requires PRs to be up to date with it (`mergeable_state: behind`). */
  requireUpToDate(branch: string): void;
  /**
   * Required status checks on `branch`, in its classic protection (read back only with admin rights)
   * or in a repository ruleset (readable with metadata access).
   */
  requireStatusChecks(branch: string, checks: SeedRequiredCheck[], via?: 'protection' | 'ruleset'): void;
  addCheckRun(run: SeedCheckRun): { id: number; jobId: number };
  updateCheckRun(id: number, changes: CheckRunChanges): void;
  addStatus(refOrSha: string, status: SeedStatus): void;
  addReview(pull: number, review: SeedReview): { reviewId: number; commentIds: number[] };
  /** A reply in the thread of `inReplyTo` (a reply to a reply joins the same thread). */
  addReviewReply(pull: number, inReplyTo: number, reply: SeedComment): number;

  /** The live log; `resetRequests()` empties it in place. */
  readonly requests: EmulatorRequest[];
  chargedCount(): number;
  resetRequests(): void;
  /** The REST representation, freshly built: mutating it does not touch the emulator's state. */
  issue(number: number): IssueJson | undefined;
  comments(number: number): CommentJson[];
  /** The reactions on an issue comment, oldest first. */
  reactions(commentId: number): Array<{ user: string; content: string }>;
  pulls(): PullJson[];
  labelsOf(number: number): string[];
  repoLabels(): Array<{ name: string; color: string; description: string | null }>;
  project(number: number, owner?: string): ProjectSnapshot | undefined;

  failNext(fault: RestFault): void;
  failGraphql(fault: GraphqlFault): void;
  /** Drops every pending fault. */
  clearFaults(): void;
}
