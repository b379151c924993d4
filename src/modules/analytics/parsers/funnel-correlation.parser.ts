import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import type { PropertyNode } from '../../../kernel/property-filters';
import { enumValue, FilterInput, integerValue, jsonValue, nameListValue, present, propertyFilterValue, textValue } from './filter-values';

/** Funnel correlation's own parameters, on top of the funnel filter; its persons' selection of one row. */

const CORRELATION_TYPES = ['events', 'properties', 'event_with_properties'] as const;

export interface CorrelationOptions {
  type: (typeof CORRELATION_TYPES)[number];
  excludeEventNames: string[];
  /** event_with_properties: the events whose properties are candidates. */
  eventNames: string[];
  excludeEventPropertyNames: string[];
  /** properties: the person (or group) property names, or every one (`$all`). */
  names: string[] | 'all';
  excludeNames: string[];
}

export interface CorrelationEntity {
  event: string;
  properties: PropertyNode | null;
}

/** The persons of one correlation row: who had its event (or property values), converted or not. */
export interface CorrelationActorsSelection {
  entity?: CorrelationEntity;
  propertyValues?: PropertyNode;
  /** true: converted only; false: dropped off only; null: both. */
  converted: boolean | null;
  limit: number;
  offset: number;
}

export function correlationOptions(input: FilterInput): CorrelationOptions {
  const type = enumValue(input, 'funnel_correlation_type', CORRELATION_TYPES, 'events');
  const eventNames = nameListValue(input, 'funnel_correlation_event_names');
  const names = nameListValue(input, 'funnel_correlation_names');
  if (type === 'event_with_properties' && eventNames.length === 0) {
    throw ApiError.validation('Event property correlation needs funnel_correlation_event_names: the events whose properties to correlate.', 'funnel_correlation_event_names');
  }
  if (type === 'properties' && names.length === 0) {
    throw ApiError.validation('Property correlation needs funnel_correlation_names: the property names to correlate, or ["$all"].', 'funnel_correlation_names');
  }
  return {
    type,
    excludeEventNames: nameListValue(input, 'funnel_correlation_exclude_event_names'),
    eventNames,
    excludeEventPropertyNames: nameListValue(input, 'funnel_correlation_event_exclude_property_names'),
    names: names.includes('$all') ? 'all' : names,
    excludeNames: nameListValue(input, 'funnel_correlation_exclude_names'),
  };
}

/** Whether a persons request names a correlation row (so `persons/funnel/` lists that row's persons). */
export function isCorrelationRequest(input: FilterInput): boolean {
  return present(input, 'funnel_correlation_person_entity') || present(input, 'funnel_correlation_property_values');
}

function entityOf(input: FilterInput): CorrelationEntity {
  const raw = jsonValue(input, 'funnel_correlation_person_entity');
  if (!isJsonObject(raw) || typeof raw.id !== 'string' || raw.id === '' || (raw.type ?? 'events') !== 'events') {
    throw ApiError.validation('funnel_correlation_person_entity must be an event entity, e.g. {"id": "$pageview", "type": "events"}.', 'funnel_correlation_person_entity');
  }
  return { event: raw.id, properties: propertyFilterValue(raw.properties, 'funnel_correlation_person_entity') };
}

export function correlationActorsSelection(input: FilterInput): CorrelationActorsSelection {
  const converted = textValue(input, 'funnel_correlation_person_converted');
  const page = {
    converted: converted === null ? null : converted.toLowerCase() === 'true',
    limit: integerValue(input, 'funnel_correlation_person_limit', 100, 1, 1000),
    offset: integerValue(input, 'funnel_correlation_person_offset', 0, 0, 10_000_000),
  };
  if (present(input, 'funnel_correlation_person_entity')) return { entity: entityOf(input), ...page };
  const values = propertyFilterValue(input.funnel_correlation_property_values, 'funnel_correlation_property_values', 'person');
  if (!values) {
    throw ApiError.validation('Name the correlation row: funnel_correlation_person_entity (an event) or funnel_correlation_property_values (property filters).', 'funnel_correlation_person_entity');
  }
  return { propertyValues: values, ...page };
}
