import { type IssueRecord, ROLE_RANK, type TokenRecord } from './records.js';
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

/** Installation tokens of the emulated app hold no organization-projects permission. */
export function requireProjectAccess(ctx: GraphqlContext): void {
  if (ctx.token.kind === 'installation') {
    throw new GraphqlFailure('Resource not accessible by integration', 'FORBIDDEN');
  }
}

/**
 * Whether the token sees the repository: anyone sees a public one; a private one needs a role, and a
 * classic token the `repo` scope (the emulated app is installed on it). GitHub answers NOT_FOUND otherwise.
 */
export function canReadRepository(ctx: GraphqlContext): boolean {
  const { store, token } = ctx;
  if (!store.repo.private || token.kind === 'installation') return true;
  if (token.kind === 'classic' && !token.scopes.includes('repo')) return false;
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

interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
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

/** GitHub's connections insist on `first` (or `last`) and cap it at 100; so does this one. */
export function connection<R, T>(records: readonly R[], args: PageArgs, name: string, toNode: (r: R) => T) {
  const last = args.last;
  if (last !== undefined && last !== null && (args.first === undefined || args.first === null)) {
    if (last < 0 || last > MAX_PAGE) {
      throw new GraphqlFailure(
        `Requesting ${last} records on the \`${name}\` connection exceeds the \`last\` limit of ${MAX_PAGE} records.`,
        'EXCESSIVE_PAGINATION',
      );
    }
    // The last `last` records (the emulator has no `before`): the cursors of the same records.
    return page(records, Math.max(0, records.length - last), last, toNode);
  }
  const first = args.first;
  if (first === undefined || first === null) {
    throw new GraphqlFailure(
      `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`,
      'MISSING_PAGINATION_BOUNDARIES',
    );
  }
  if (first < 0 || first > MAX_PAGE) {
    throw new GraphqlFailure(
      `Requesting ${first} records on the \`${name}\` connection exceeds the \`first\` limit of ${MAX_PAGE} records.`,
      'EXCESSIVE_PAGINATION',
    );
  }
  return page(records, args.after ? cursorIndex(args.after) + 1 : 0, first, toNode);
}

function page<R, T>(records: readonly R[], start: number, count: number, toNode: (r: R) => T) {
  const slice = records.slice(start, start + count);
  const result: Connection<T> = {
    nodes: slice.map(toNode),
    totalCount: records.length,
    pageInfo: {
      hasNextPage: start + slice.length < records.length,
      hasPreviousPage: start > 0,
      startCursor: slice.length > 0 ? cursor(start) : null,
      endCursor: slice.length > 0 ? cursor(start + slice.length - 1) : null,
    },
  };
  return result;
}
