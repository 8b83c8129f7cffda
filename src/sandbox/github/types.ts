import type { EmulatorRequest } from './request-log.js';
import type { CommentJson, IssueJson, PullJson } from './rest-shapes.js';

export type { EmulatorRequest } from './request-log.js';
export type { CommentJson, EventJson, IssueJson, LabelJson, PullJson, UserJson } from './rest-shapes.js';

export type TokenKind = 'classic' | 'fine-grained' | 'installation';
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
}

export interface TokenOptions {
  login: string;
  kind: TokenKind;
  /** Only classic tokens have scopes; they are reported in `x-oauth-scopes`. */
  scopes?: string[];
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

  addToken(token: string, options: TokenOptions): void;
  addUser(login: string, options?: { type?: 'User' | 'Bot' }): void;
  setPermission(login: string, role: RepoRole): void;
  addLabel(name: string, color?: string): void;
  addIssue(issue: SeedIssue): number;
  labelIssue(number: number, label: string, actor: string): void;
  unlabelIssue(number: number, label: string, actor: string): void;
  /** As `actor` would through the web or the API: a title change is a `renamed` event, a body change sets `editor`. */
  editIssue(number: number, changes: { title?: string; body?: string }, actor: string): void;
  addComment(number: number, comment: SeedComment): number;
  addProject(project: SeedProject): { id: string; number: number };

  /** The live log; `resetRequests()` empties it in place. */
  readonly requests: EmulatorRequest[];
  chargedCount(): number;
  resetRequests(): void;
  /** The REST representation, freshly built: mutating it does not touch the emulator's state. */
  issue(number: number): IssueJson | undefined;
  comments(number: number): CommentJson[];
  pulls(): PullJson[];
  labelsOf(number: number): string[];
  repoLabels(): Array<{ name: string; color: string; description: string | null }>;
  project(number: number, owner?: string): ProjectSnapshot | undefined;

  failNext(fault: RestFault): void;
  failGraphql(fault: GraphqlFault): void;
  /** Drops every pending fault. */
  clearFaults(): void;
}
