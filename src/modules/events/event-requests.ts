import { ApiError } from '../../common/errors/api-error';
import { queryBoolean, queryText } from '../../common/http/query-values';
import { UUID_PATTERN } from '../../common/validation/patterns';
import { RELATIVE_DATE } from '../../kernel/property-operators';
import { EventOrder, parseOrderBy } from './event-list-order';
import { parsePropertyFilters, PropertyFilterError, PropertyNode } from '../../kernel/property-filters';

export interface EventListFilters {
  /** Exclusive bounds as UTC text PostgreSQL reads exactly (microseconds kept). */
  after?: string;
  before: string;
  /** With `before`, newest first: the uuid of the last event already seen at that timestamp (keyset paging). */
  beforeId?: string;
  /** With `after`, oldest first: the same cursor for ascending pages. */
  afterId?: string;
  order: EventOrder;
  /** `action_id`: events matching one of the action's steps (none when the project has no such action). */
  actionId?: number;
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

/**
 * A keyset cursor id: an event uuid that goes with its bound (`before_id` with `before`, `after_id`
 * with `after`) and with the order that produces it, since each cursor only pages one direction.
 */
function parseCursorId(query: Record<string, unknown>, name: 'before_id' | 'after_id', order: EventOrder): string | undefined {
  const id = queryText(query[name]);
  if (id === undefined) return undefined;
  const [bound, direction, wanted] = name === 'before_id' ? ['before', 'desc', '["-timestamp"]'] : ['after', 'asc', '["timestamp"]'];
  if (!UUID_PATTERN.test(id) || !queryText(query[bound])) throw ApiError.validation(`${name} needs ${bound} and must be an event id.`, name);
  if (order !== direction) throw ApiError.validation(`${name} pages events in the order ${wanted}; pass that orderBy too.`, name);
  return id.toLowerCase();
}

/** `action_id`: an integer, or a 400 as DRF answers a bad integer. */
export function parseActionId(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = queryText(raw)?.trim();
  if (text === undefined || !/^-?\d+$/.test(text)) throw ApiError.validation('A valid integer is required.', 'action_id');
  return Number(text);
}

/**
 * `include_person`. Absent, or present without a value, means yes: the Event record carries `person`
 * and PostHog's list always filled it in (docs/decisions/0144-include-person-default-yes.md). `false`/`0` leaves it null and skips
 * the person lookup.
 */
export function parseIncludePerson(raw: unknown): boolean {
  if (raw === undefined) return true;
  const text = queryText(raw);
  const value = text?.trim() === '' ? true : text === undefined ? undefined : queryBoolean(text);
  if (value === undefined) throw ApiError.validation('Must be a valid boolean.', 'include_person');
  return value;
}

/**
 * `after`, `before`, `before_id`, `after_id`, `distinct_id`, `event`, `person_id`, `properties`,
 * `action_id`, `orderBy`.
 */
export function parseEventListFilters(query: Record<string, unknown>, now = new Date()): EventListFilters {
  const order = parseOrderBy(queryText(query.orderBy));
  const after = queryText(query.after);
  const before = queryText(query.before);
  const beforeId = parseCursorId(query, 'before_id', order);
  const afterId = parseCursorId(query, 'after_id', order);
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
    beforeId,
    afterId,
    order,
    actionId: parseActionId(query.action_id),
    distinctId: queryText(query.distinct_id),
    event: queryText(query.event),
    personRef: queryText(query.person_id),
    properties,
  };
}

/** The event names a request narrows to (`event`, repeatable `event_name`). */
export function eventNamesOf(query: Record<string, unknown>): string[] {
  const names = [query.event, query.event_name].flatMap((raw) => (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]));
  return [...new Set(names.filter((name): name is string => typeof name === 'string' && name !== ''))];
}
