import { hasScopes, type IssueRecord, ROLE_RANK, type TokenRecord, type UserRecord } from './records.js';
import type { Store } from './store.js';

/** A resolver failure in GitHub's error shape: the message plus the top-level `type` (when GitHub sets one). */
export class GraphqlFailure extends Error {
  readonly type: string | undefined;

  constructor(message: string, type?: string) {
    super(message);
    this.name = 'GraphqlFailure';
    this.type = type;
  }
}

export interface GraphqlContext {
  store: Store;
  token: TokenRecord;
  /** Web host for `url` fields. */
  html: string;
}

export function nodeNotFound(id: string): GraphqlFailure {
  return new GraphqlFailure(`Could not resolve to a node with the global id of '${id}'.`, 'NOT_FOUND');
}

/**
 * Installation tokens reach a board only with the App's organization-projects permission (the
 * Actions token and the default emulated app hold none); a fine-grained token reaches no user-owned
 * project (only a classic one with `project` does).
 */
export function requireProjectAccess(ctx: GraphqlContext, owner?: UserRecord): void {
  if (ctx.token.kind === 'installation' && !ctx.token.permissions?.organization_projects) {
    throw new GraphqlFailure('Resource not accessible by integration', 'FORBIDDEN');
  }
  if (ctx.token.kind === 'fine-grained' && owner?.type === 'User') {
    throw new GraphqlFailure('Resource not accessible by personal access token', 'FORBIDDEN');
  }
}

/**
 * Whether the token sees the repository: anyone sees a public one; a private one needs a role, and a
 * classic token the `repo` scope (the emulated app is installed on it). GitHub answers NOT_FOUND otherwise.
 */
export function canReadRepository(ctx: GraphqlContext): boolean {
  const { store, token } = ctx;
  if (!store.repo.private || token.kind === 'installation') return true;
  if (hasScopes(token) && !token.scopes.includes('repo')) return false;
  return store.roleOf(token.login) !== 'none';
}

/** Who may resolve a PR's review threads: its author and anyone with write access (the emulated app too). */
export function canResolveThreads(ctx: GraphqlContext, pull: IssueRecord): boolean {
  const { store, token } = ctx;
  if (token.kind === 'installation') return true;
  if (pull.author.toLowerCase() === token.login.toLowerCase()) return true;
  return ROLE_RANK[store.roleOf(token.login)] >= ROLE_RANK.write;
}

/** GitHub's refusal of a mutation the viewer has no permission for. */
export function mutationForbidden(ctx: GraphqlContext, mutation: string): GraphqlFailure {
  return new GraphqlFailure(
    `${ctx.token.login} does not have the correct permissions to execute \`${mutation}\``,
    'FORBIDDEN',
  );
}

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface Connection<T> {
  nodes: T[];
  totalCount: number;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
}

const MAX_PAGE = 100;

const cursor = (index: number) => Buffer.from(`cursor:v2:${index}`).toString('base64');

function cursorIndex(after: string): number {
  const match = /^cursor:v2:(\d+)$/.exec(Buffer.from(after, 'base64').toString());
  if (!match?.[1])
    throw new GraphqlFailure(
      `\`${after}\` does not appear to be a valid cursor.`,
      'INVALID_CURSOR_ARGUMENTS',
    );
  return Number(match[1]);
}

function pageSize(
  value: number | null | undefined,
  bound: 'first' | 'last',
  name: string,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (value < 0 || value > MAX_PAGE) {
    throw new GraphqlFailure(
      `Requesting ${value} records on the \`${name}\` connection exceeds the \`${bound}\` limit of ${MAX_PAGE} records.`,
      'EXCESSIVE_PAGINATION',
    );
  }
  return value;
}

/**
 * GitHub's connections, as the Relay algorithm: `after` and `before` bound the records, then
 * `first` takes from the start of what is left or `last` from its end. GitHub insists on one of
 * `first` and `last`, refuses both, and caps each at 100; so does this one.
 */
export function connection<R, T>(records: readonly R[], args: PageArgs, name: string, toNode: (r: R) => T) {
  const first = pageSize(args.first, 'first', name);
  const last = pageSize(args.last, 'last', name);
  if (first === undefined && last === undefined) {
    throw new GraphqlFailure(
      `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`,
      'MISSING_PAGINATION_BOUNDARIES',
    );
  }
  if (first !== undefined && last !== undefined) {
    throw new GraphqlFailure(
      `Passing both \`first\` and \`last\` to paginate the \`${name}\` connection is not supported.`,
      'INVALID_PAGINATION_ARGUMENTS',
    );
  }
  let start = args.after ? Math.min(cursorIndex(args.after) + 1, records.length) : 0;
  let end = args.before
    ? Math.max(Math.min(cursorIndex(args.before), records.length), start)
    : records.length;
  if (first !== undefined) end = Math.min(end, start + first);
  if (last !== undefined) start = Math.max(start, end - last);
  return page(records, start, end, toNode);
}

function page<R, T>(records: readonly R[], start: number, end: number, toNode: (r: R) => T) {
  const slice = records.slice(start, end);
  const result: Connection<T> = {
    nodes: slice.map(toNode),
    totalCount: records.length,
    pageInfo: {
      hasNextPage: end < records.length,
      hasPreviousPage: start > 0,
      startCursor: slice.length > 0 ? cursor(start) : null,
      endCursor: slice.length > 0 ? cursor(end - 1) : null,
    },
  };
  return result;
}
