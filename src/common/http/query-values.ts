import { ApiError } from '../errors/api-error';

/** A query parameter as text: a repeated one counts by its last value (Django's QueryDict); absent or not text → undefined. */
export function queryText(raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' ? value : undefined;
}

/** DRF BooleanField's spellings of true and false, case-insensitive, as PostHog reads boolean query parameters. */
const TRUE_TEXT = new Set(['true', 't', 'yes', 'y', 'on', '1']);
const FALSE_TEXT = new Set(['false', 'f', 'no', 'n', 'off', '0']);

/** A boolean query text as DRF reads it: true, false, or undefined for anything else. */
export function queryBoolean(text: string): boolean | undefined {
  const folded = text.trim().toLowerCase();
  return TRUE_TEXT.has(folded) ? true : FALSE_TEXT.has(folded) ? false : undefined;
}

/** PostHog's limit on a list's `search` text. */
const MAX_SEARCH_LENGTH = 200;

/** A list's `search` text: undefined when absent or empty, a 400 past 200 characters, as PostHog answers. */
export function querySearch(raw: unknown): string | undefined {
  const search = queryText(raw);
  if (search === undefined || search === '') return undefined;
  if (search.length > MAX_SEARCH_LENGTH) throw ApiError.validation(`search must be at most ${MAX_SEARCH_LENGTH} characters.`, 'search');
  return search;
}
