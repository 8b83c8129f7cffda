import type { RateLimiter } from './rate-limit.js';
import type { TokenRecord } from './records.js';
import { notFound, type Reply } from './replies.js';
import type { Urls } from './serialize.js';
import type { Store } from './store.js';

export interface RouteContext {
  method: string;
  /** The absolute request URL, on whatever base the request came in. */
  url: URL;
  params: Record<string, string>;
  body: unknown;
  token: TokenRecord;
  store: Store;
  rate: RateLimiter;
  urls: Urls;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /**
   * Segments starting with `:` capture one URL-decoded segment; one segment starting with `*`
   * captures one or more, joined by `/` (a branch such as `issueloop/issue-1`, sent unencoded).
   */
  pattern: string;
  handle(ctx: RouteContext): Reply;
}

function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  const star = want.findIndex((part) => part.startsWith('*'));
  const extra = got.length - want.length;
  if (star < 0 ? extra !== 0 : extra < 0) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const at = star >= 0 && i > star ? i + extra : i;
    const actual = i === star ? got.slice(i, i + extra + 1).join('/') : (got[at] ?? '');
    if (part.startsWith(':') || part.startsWith('*')) {
      if (actual === '' || actual.split('/').includes('')) return undefined;
      try {
        params[part.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (part !== actual) {
      return undefined;
    }
  }
  return params;
}

/**
 * Finds the route for `path` (relative to the base URL, without the query) and runs it. Routes under
 * a repository answer 404 for any other owner or name, compared case-insensitively like GitHub.
 */
export function dispatch(routes: readonly Route[], path: string, ctx: Omit<RouteContext, 'params'>): Reply {
  for (const route of routes) {
    if (route.method !== ctx.method) continue;
    const params = match(route.pattern, path);
    if (!params) continue;
    const { owner, repo } = params;
    if (owner !== undefined && owner.toLowerCase() !== ctx.store.owner.login.toLowerCase()) return notFound();
    if (repo !== undefined && repo.toLowerCase() !== ctx.store.repo.name.toLowerCase()) return notFound();
    return route.handle({ ...ctx, params });
  }
  return notFound();
}

/** A positive integer path parameter, or undefined for anything else (which routes answer with 404). */
export function intParam(ctx: RouteContext, name: string): number | undefined {
  const raw = ctx.params[name] ?? '';
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}
