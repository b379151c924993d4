import { queryText } from './query-values';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  count?: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A repeated parameter counts by its last value, as in Django's QueryDict. Huge values saturate. */
export function queryInteger(raw: unknown): number | null {
  const value = queryText(raw);
  if (value === undefined || !/^\d+$/.test(value)) return null;
  return Math.min(Number(value), Number.MAX_SAFE_INTEGER);
}

/**
 * DRF LimitOffsetPagination semantics: an unparsable limit falls back to the default, limit is
 * capped at MAX_LIMIT, a bad offset means 0.
 */
export function parsePageRequest(query: Record<string, unknown> | undefined): PageRequest {
  const limit = queryInteger(query?.limit);
  const offset = queryInteger(query?.offset);
  return {
    limit: limit === null || limit === 0 ? DEFAULT_LIMIT : Math.min(limit, MAX_LIMIT),
    offset: offset ?? 0,
  };
}

/** Sets (or, for null, removes) query parameters of an absolute URL, keeping every other parameter. */
export function withQueryParams(url: URL, params: Record<string, number | null>): string {
  const copy = new URL(url.toString());
  for (const [name, value] of Object.entries(params)) {
    if (value === null) copy.searchParams.delete(name);
    else copy.searchParams.set(name, String(value));
  }
  return copy.toString();
}

function withPageParams(url: URL, limit: number, offset: number | null): string {
  return withQueryParams(url, { limit, offset });
}

/** The `{count, next, previous, results}` envelope with absolute links, as DRF builds it. */
export function buildPage<T>(
  requestUrl: URL,
  page: PageRequest,
  results: T[],
  count: number,
  options: { includeCount?: boolean } = {},
): Page<T> {
  const { limit, offset } = page;
  const next = offset + limit < count ? withPageParams(requestUrl, limit, offset + limit) : null;
  let previous: string | null = null;
  if (offset > 0) previous = withPageParams(requestUrl, limit, offset - limit > 0 ? offset - limit : null);
  const envelope: Page<T> = { next, previous, results };
  return options.includeCount === false ? envelope : { count, ...envelope };
}
