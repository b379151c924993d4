import { ApiError } from '../../common/errors/api-error';
import { queryText } from '../../common/http/query-values';
import { cleanJson } from '../../common/json/clean-text';
import { scalarText } from '../../common/json/json-object';
import { UUID_PATTERN } from '../../common/validation/patterns';
import { parsePropertyFilters, PropertyFilterError, PropertyNode } from '../../kernel/property-filters';

export interface PersonListFilters {
  distinctId?: string;
  email?: string;
  search?: string;
  searchUuid?: string;
  properties: PropertyNode | null;
}

/** A filter list the API refuses → 400, as PostHog answers unparsable properties. */
export function filterError(error: unknown): never {
  if (error instanceof PropertyFilterError) throw ApiError.validation(error.detail);
  throw error;
}

/** `distinct_id`, `email`, `search`, `properties` of `GET persons/`. */
export function parsePersonListFilters(query: Record<string, unknown>): PersonListFilters {
  const search = queryText(query.search)?.trim();
  let properties: PropertyNode | null = null;
  try {
    // Only person properties and cohorts make sense on persons, so untyped filters mean person properties.
    properties = parsePropertyFilters(query.properties, 'person');
  } catch (error) {
    filterError(error);
  }
  return {
    distinctId: queryText(query.distinct_id),
    email: queryText(query.email),
    search: search || undefined,
    searchUuid: search && UUID_PATTERN.test(search) ? search.toLowerCase() : undefined,
    properties,
  };
}

export type PersonRef = { id: number } | { uuid: string };

const NOT_A_PERSON_ID =
  'The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=<value> instead.';

/** `:id` is the integer id or the uuid (PostHog's `get_pk_or_uuid`); anything else is a 400. */
export function parsePersonRef(raw: string): PersonRef {
  if (/^\d{1,15}$/.test(raw)) return { id: Number(raw) };
  if (UUID_PATTERN.test(raw)) return { uuid: raw.toLowerCase() };
  throw ApiError.validation(NOT_A_PERSON_ID);
}

export interface PersonDeleteOptions {
  deleteEvents: boolean;
  keepPerson: boolean;
}

/**
 * `DELETE persons/:id/?delete_events=true&keep_person=true`: a flag is on for `true` or `1` (any case), as
 * PostHog's docs write it; any other value, or none, leaves it off rather than deleting on a typo.
 */
export function parsePersonDeleteOptions(query: Record<string, unknown>): PersonDeleteOptions {
  const on = (raw: unknown) => /^(true|1)$/i.test(queryText(raw) ?? '');
  return { deleteEvents: on(query.delete_events), keepPerson: on(query.keep_person) };
}

/** `value` of update_property: JSON when it parses (so `5`, `true`, `{"a":1}` keep their type), else the text. */
export function propertyValueOf(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    // JSON the body parser never saw: its escapes may hold NUL or lone surrogates, stored as U+FFFD.
    return cleanJson(JSON.parse(raw));
  } catch {
    return raw;
  }
}

/** A body or query field (body first), or a 400 `required` naming it. */
export function requiredField(body: unknown, query: Record<string, unknown>, field: string): unknown {
  const fromBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined;
  const value = fromBody !== undefined ? fromBody : queryText(query[field]);
  if (value === undefined) throw ApiError.validation('This field is required.', field, 'required');
  return value;
}

/** A field the action uses as a name (`$unset`, `key`, `main_distinct_id`): text, or a number as its text. */
export function textField(value: unknown, field: string): string {
  const text = scalarText(value);
  if (text === null) throw ApiError.validation('Not a valid string.', field);
  return text;
}
