import { ApiError } from '../../common/errors/api-error';
import { UUID_PATTERN } from '../../common/validation/patterns';
import { RELATIVE_DATE } from '../feature-flags/property-operators';
import { parsePropertyFilters, PropertyFilterError, PropertyNode } from './property-filters';

export interface EventListFilters {
  /** Exclusive bounds as UTC text PostgreSQL reads exactly (microseconds kept). */
  after?: string;
  before: string;
  /** With `before`: the uuid of the last event already seen at that timestamp (keyset paging). */
  beforeId?: string;
  distinctId?: string;
  event?: string;
  /** `person_id` as given: an integer id or a uuid (resolved to its distinct ids). */
  personRef?: string;
  properties: PropertyNode | null;
}

/** How far ahead of now events are still listed (PostHog: `before` defaults to now + 5 s). */
const FUTURE_SLACK_MS = 5000;
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30 * 86_400_000, y: 365 * 86_400_000 };

export function lastValue(raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' ? value : undefined;
}

/**
 * An ISO timestamp (microseconds kept) or a relative one (`-1d`, `-3h`), as UTC text for PostgreSQL.
 * Only text that round-trips through a real date is passed on, so PostgreSQL never sees an odd date.
 */
export function parseBound(raw: string, attr: string, now: Date): string {
  const relative = RELATIVE_DATE.exec(raw.trim());
  if (relative) return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2]]).toISOString();
  const match = ISO.exec(raw.trim());
  const parsed = match ? Date.parse(match[2] || match[4] ? raw.trim().replace(' ', 'T') : `${match[1]}T00:00:00Z`) : Number.NaN;
  if (!match || Number.isNaN(parsed) || !match[1].startsWith(new Date(parsed - offsetMs(match[4])).toISOString().slice(0, 10))) {
    throw ApiError.validation(`Invalid date: ${raw.slice(0, 100)}`, attr);
  }
  const fraction = (match[3] ?? '').padEnd(6, '0').slice(0, 6);
  return `${new Date(parsed).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** The offset of a `+hh:mm` suffix, so the calendar date can be checked as written. */
function offsetMs(zone: string | undefined): number {
  if (!zone || /^z$/i.test(zone)) return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000;
}

/** `after`, `before`, `before_id`, `distinct_id`, `event`, `person_id`, `properties` (reference/management-api.md §5.1). */
export function parseEventListFilters(query: Record<string, unknown>, now = new Date()): EventListFilters {
  const after = lastValue(query.after);
  const before = lastValue(query.before);
  const beforeId = lastValue(query.before_id);
  if (beforeId !== undefined && (!UUID_PATTERN.test(beforeId) || !before)) throw ApiError.validation('before_id needs before and must be an event id.', 'before_id');
  let properties: PropertyNode | null = null;
  try {
    properties = parsePropertyFilters(query.properties, 'event');
  } catch (error) {
    if (error instanceof PropertyFilterError) throw ApiError.validation(error.detail);
    throw error;
  }
  return {
    after: after ? parseBound(after, 'after', now) : undefined,
    before: before ? parseBound(before, 'before', now) : new Date(now.getTime() + FUTURE_SLACK_MS).toISOString(),
    beforeId: beforeId?.toLowerCase(),
    distinctId: lastValue(query.distinct_id),
    event: lastValue(query.event),
    personRef: lastValue(query.person_id),
    properties,
  };
}

/** The event names a request narrows to (`event`, repeatable `event_name`). */
export function eventNamesOf(query: Record<string, unknown>): string[] {
  const names = [query.event, query.event_name].flatMap((raw) => (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]));
  return [...new Set(names.filter((name): name is string => typeof name === 'string' && name !== ''))];
}
