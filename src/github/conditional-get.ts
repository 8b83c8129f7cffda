import type { GitHubClient } from './client.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';

/**
 * GET with `If-None-Match` from the ETag cache. Octokit's paginate cannot send a different ETag
 * per page, so listings walk the `Link` header here, one conditional request per page.
 */
export interface ConditionalPage<T> {
  data: T;
  next: string | null;
  notModified: boolean;
}

const NEXT_LINK = /<([^>]+)>;\s*rel="next"/;

export function nextLink(link: string | undefined): string | null {
  return link ? (NEXT_LINK.exec(link)?.[1] ?? null) : null;
}

export async function getConditional<T>(
  gh: GitHubClient,
  cache: EtagCache,
  url: string,
  reduce: (raw: unknown) => T,
  operation: string,
): Promise<ConditionalPage<T>> {
  const cached = cache.get(url);
  const now = gh.clock.now();
  return gh.call(operation, async () => {
    try {
      const headers: Record<string, string> = cached ? { 'if-none-match': cached.etag } : {};
      const response = await gh.rest.request({ method: 'GET', url, headers });
      const data = reduce(response.data);
      const next = nextLink(response.headers.link);
      const etag = response.headers.etag;
      if (etag) cache.set(url, { etag, data, next, used: now });
      return { data, next, notModified: false };
    } catch (err) {
      if (httpStatusOf(err) === 304 && cached) {
        cache.set(url, { ...cached, used: now });
        return { data: cached.data as T, next: cached.next, notModified: true };
      }
      throw err;
    }
  });
}

export interface AllPages<T> {
  items: T[];
  pages: number;
  notModified: number;
}

/** Every page of a listing, each fetched conditionally; stops at `maxPages` (a runaway guard). */
export async function getAllPages<T>(
  gh: GitHubClient,
  cache: EtagCache,
  firstUrl: string,
  reduce: (raw: unknown) => T[],
  operation: string,
  maxPages = 100,
): Promise<AllPages<T>> {
  const items: T[] = [];
  let url: string | null = firstUrl;
  let pages = 0;
  let notModified = 0;
  while (url !== null && pages < maxPages) {
    const page: ConditionalPage<T[]> = await getConditional(gh, cache, url, reduce, operation);
    items.push(...page.data);
    pages += 1;
    if (page.notModified) notModified += 1;
    url = page.next;
  }
  return { items, pages, notModified };
}
