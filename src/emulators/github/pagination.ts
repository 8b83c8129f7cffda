export interface Page<T> {
  items: T[];
  /** The `link` header, absent when everything fits on one page (as on GitHub). */
  link?: string;
}

const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

function positiveInt(raw: string | null, fallback: number): number {
  const value = raw === null ? Number.NaN : Number.parseInt(raw, 10);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** The same path and query with `page` set, keeping the other parameters exactly as the client sent them. */
function withPage(path: string, query: string, page: number): string {
  const kept = query
    .replace(/^\?/, '')
    .split('&')
    .filter((part) => part !== '' && !part.startsWith('page='));
  return `${path}?${[...kept, `page=${page}`].join('&')}`;
}

/**
 * Cuts one page out of `list` from `per_page` and `page`, and builds the `link` header with absolute
 * URLs in GitHub's order: prev, next, last, first.
 */
export function paginate<T>(list: readonly T[], url: URL): Page<T> {
  const perPage = Math.min(positiveInt(url.searchParams.get('per_page'), DEFAULT_PER_PAGE), MAX_PER_PAGE);
  const page = positiveInt(url.searchParams.get('page'), 1);
  const items = list.slice((page - 1) * perPage, page * perPage);
  const last = Math.max(1, Math.ceil(list.length / perPage));
  if (last === 1 && page === 1) return { items };

  const target = (n: number) => `${url.origin}${withPage(url.pathname, url.search, n)}`;
  const parts: string[] = [];
  if (page > 1) parts.push(`<${target(Math.min(page - 1, last))}>; rel="prev"`);
  if (page < last) parts.push(`<${target(page + 1)}>; rel="next"`, `<${target(last)}>; rel="last"`);
  if (page > 1) parts.push(`<${target(1)}>; rel="first"`);
  return { items, link: parts.join(', ') };
}
