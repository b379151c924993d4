import { cleanString } from '../../common/json/clean-text';
import { scalarText } from '../../common/json/json-object';

/** PostHog cuts longer distinct ids at 200 characters. */
export const MAX_DISTINCT_ID_LENGTH = 200;

/**
 * A distinct id as it is stored: strings kept, numbers and others stringified, NUL and lone surrogates
 * replaced, cut to 200 characters. Ingestion stores ids this way, and every lookup by an id from outside
 * (decide, merges, bulk delete) reads it the same way, so both name the same person.
 */
export function normalizeDistinctId(raw: unknown): string | null {
  const clean = distinctIdText(raw);
  if (clean === null || clean.length <= MAX_DISTINCT_ID_LENGTH) return clean;
  return Array.from(clean).slice(0, MAX_DISTINCT_ID_LENGTH).join('');
}

/** The length in characters of a distinct id before it is cut, when it is longer than what is stored; else null. */
export function cutDistinctIdLength(raw: unknown): number | null {
  const clean = distinctIdText(raw);
  if (clean === null || clean.length <= MAX_DISTINCT_ID_LENGTH) return null;
  const length = Array.from(clean).length;
  return length > MAX_DISTINCT_ID_LENGTH ? length : null;
}

function distinctIdText(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : JSON.stringify(raw);
  return cleanString(text);
}

/**
 * An id a request names (decide's `distinct_id`, an `$anon_distinct_id` or `alias`): text or a number,
 * normalised as stored; null for anything else, which names nobody.
 */
export function scalarDistinctId(raw: unknown): string | null {
  const text = scalarText(raw);
  return text === null ? null : normalizeDistinctId(text);
}
