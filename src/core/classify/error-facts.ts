import { type HeaderBag, isHeaderBag, readHeader } from './headers.js';

/**
 * The structured facts a failure carries, gathered from the error and everything nested in it
 * (`cause`, `error`, AggregateError's `errors`), outermost first, with a bounded walk.
 */
export interface ErrorFacts {
  aborted: boolean;
  /** A named timeout: DOMException `TimeoutError` (AbortSignal.timeout) or the SDK's connection timeout. */
  namedTimeout: boolean;
  /** The SDK's `APIConnectionError` or `ClaimStoreUnreachableError`: no answer from the server. */
  namedConnection: boolean;
  status?: number;
  headers?: HeaderBag;
  source?: 'anthropic' | 'github';
  /** Anthropic body: `{"type":"error","error":{"type","message","details"}}`. */
  apiType?: string;
  apiMessage?: string;
  apiErrorCode?: string;
  /** GitHub REST body message (`response.data.message`). */
  githubMessage?: string;
  graphqlErrors?: ReadonlyArray<{ type?: string; message: string }>;
  /** The first Node / undici error code found (ECONNRESET, UND_ERR_SOCKET, …). */
  nodeCode?: string;
  /** Messages of every node, outermost first, for the text fallback and the user-facing line. */
  messages: string[];
}

const MAX_DEPTH = 6;
const MAX_NODES = 32;

type Node = Record<string, unknown>;

function isObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readAnthropicBody(node: Node): { type: string; message?: string; code?: string } | undefined {
  const inner = node.error;
  if (node.type !== 'error' || !isObject(inner)) return undefined;
  const type = str(inner.type);
  if (!type) return undefined;
  const details = isObject(inner.details) ? inner.details : undefined;
  const out: { type: string; message?: string; code?: string } = { type };
  const message = str(inner.message);
  if (message) out.message = message;
  const code = str(details?.error_code);
  if (code) out.code = code;
  return out;
}

function readGraphqlErrors(node: Node): Array<{ type?: string; message: string }> | undefined {
  const errors = node.errors;
  // AggregateError also has `errors`, but of Error instances; GraphQL errors are plain JSON objects.
  if (node instanceof AggregateError || !Array.isArray(errors) || errors.length === 0) return undefined;
  const out: Array<{ type?: string; message: string }> = [];
  for (const entry of errors) {
    if (!isObject(entry) || entry instanceof Error || typeof entry.message !== 'string') return undefined;
    const type = str(entry.type);
    out.push(type ? { type, message: entry.message } : { message: entry.message });
  }
  return out;
}

function visit(node: Node, facts: ErrorFacts): void {
  const name = str(node.name);
  const code = str(node.code);
  if (
    name === 'AbortError' ||
    name === 'APIUserAbortError' ||
    code === 'ABORT_ERR' ||
    code === 'UND_ERR_ABORTED'
  ) {
    facts.aborted = true;
  }
  if (name === 'TimeoutError' || name === 'APIConnectionTimeoutError') facts.namedTimeout = true;
  // The SDK's, and the Redis claim store's when the server cannot be reached.
  if (name === 'APIConnectionError' || name === 'ClaimStoreUnreachableError') facts.namedConnection = true;
  if (name === 'HttpError' || name === 'GraphqlResponseError') facts.source ??= 'github';

  const message = str(node.message);
  if (message) facts.messages.push(message);

  const response = isObject(node.response) ? node.response : undefined;
  // Octokit reports a network failure as status 500 with no response: that status is not the server's.
  const syntheticStatus = name === 'HttpError' && response === undefined;
  if (facts.status === undefined && typeof node.status === 'number' && node.status > 0 && !syntheticStatus) {
    facts.status = node.status;
  }

  const headers = isHeaderBag(node.headers)
    ? node.headers
    : isHeaderBag(response?.headers)
      ? response.headers
      : undefined;
  if (headers && facts.headers === undefined) {
    facts.headers = headers;
    if (readHeader(headers, 'x-github-request-id') !== undefined) facts.source ??= 'github';
    else if (readHeader(headers, 'request-id')?.startsWith('req_')) facts.source ??= 'anthropic';
  }

  const body = readAnthropicBody(node);
  if (body && facts.apiType === undefined) {
    facts.apiType = body.type;
    if (body.message) facts.apiMessage = body.message;
    if (body.code) facts.apiErrorCode = body.code;
    facts.source ??= 'anthropic';
  }

  const data = isObject(response?.data) ? response.data : undefined;
  if (data && facts.githubMessage === undefined) {
    const dataMessage = str(data.message);
    if (dataMessage) facts.githubMessage = dataMessage;
    if (str(data.documentation_url)?.includes('docs.github.com')) facts.source ??= 'github';
  }

  const graphql = readGraphqlErrors(node);
  if (graphql && facts.graphqlErrors === undefined) {
    facts.graphqlErrors = graphql;
    facts.source ??= 'github';
  }

  if (code && facts.nodeCode === undefined && /^(E[A-Z0-9_]+|UND_ERR_[A-Z_]+)$/.test(code))
    facts.nodeCode = code;
}

export function gatherFacts(err: unknown): ErrorFacts {
  const facts: ErrorFacts = { aborted: false, namedTimeout: false, namedConnection: false, messages: [] };
  const seen = new Set<unknown>();
  const queue: Array<{ value: unknown; depth: number }> = [{ value: err, depth: 0 }];
  while (queue.length > 0 && seen.size < MAX_NODES) {
    const next = queue.shift();
    if (!next) break;
    const { value, depth } = next;
    if (seen.has(value)) continue;
    seen.add(value);
    if (typeof value === 'string') {
      if (value !== '') facts.messages.push(value);
      continue;
    }
    if (!isObject(value)) continue;
    visit(value, facts);
    if (depth >= MAX_DEPTH) continue;
    for (const key of ['cause', 'error'] as const) {
      if (value[key] !== undefined) queue.push({ value: value[key], depth: depth + 1 });
    }
    // AggregateError (e.g. connecting to every address of a host failed): each member is a cause.
    if (value instanceof AggregateError) {
      for (const member of value.errors) queue.push({ value: member, depth: depth + 1 });
    }
  }
  return facts;
}
