import { ApiError } from '../../../common/errors/api-error';
import type { ActionMatcher } from '../../actions/action-matcher';
import { COUNT_PER_ACTOR_MATHS, EVENT_MATHS, FIRST_TIME_MATHS, PROPERTY_MATHS, Series, SeriesMath } from '../model/insight-query';
import { propertyFilterValue } from './filter-values';

/** At most this many series in one insight, so one request stays one bounded set of queries. */
export const MAX_SERIES = 20;
const MATHS: readonly string[] = [...EVENT_MATHS, ...PROPERTY_MATHS, ...COUNT_PER_ACTOR_MATHS, ...FIRST_TIME_MATHS];

/** The fields of one series, whichever door it came through (legacy entity or EventsNode). */
export interface SeriesFields {
  event: unknown;
  /** An action series: the action its id names (resolved by the caller), instead of an event. */
  action?: ActionMatcher | null;
  name: unknown;
  customName: unknown;
  order: unknown;
  math: unknown;
  mathProperty: unknown;
  mathGroupTypeIndex: unknown;
  properties: unknown;
}

function optionalText(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

function mathOf(value: unknown): SeriesMath {
  if (value === undefined || value === null || value === '') return 'total';
  if (typeof value !== 'string' || !MATHS.includes(value)) {
    throw ApiError.validation(`math ${JSON.stringify(value)} is not supported: use one of ${MATHS.join(', ')}.`, 'math');
  }
  return value as SeriesMath;
}

function groupIndexOf(value: unknown, attr: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const index = Number(value);
  if (!Number.isInteger(index) || index < 0 || index > 4) throw ApiError.validation(`${attr} must be a group type index from 0 to 4.`, attr);
  return index;
}

/** One validated series; `index` is its place after sorting by order. */
export function seriesFrom(fields: SeriesFields, index: number): Series {
  const action = fields.action ?? null;
  const event = action ? null : optionalText(fields.event);
  const math = mathOf(fields.math);
  const mathProperty = optionalText(fields.mathProperty);
  if ((PROPERTY_MATHS as readonly string[]).includes(math) && mathProperty === null) {
    throw ApiError.validation(`math "${math}" needs math_property: the numeric event property to aggregate.`, 'math_property');
  }
  const mathGroupTypeIndex = groupIndexOf(fields.mathGroupTypeIndex, 'math_group_type_index');
  if (math === 'unique_group' && mathGroupTypeIndex === null) {
    throw ApiError.validation('math "unique_group" needs math_group_type_index: the group type (0–4) to count.', 'math_group_type_index');
  }
  const order = fields.order === undefined || fields.order === null ? null : Number(fields.order);
  return {
    index,
    event,
    action,
    name: action?.name ?? optionalText(fields.name) ?? event ?? 'All events',
    customName: optionalText(fields.customName),
    order: Number.isFinite(order) ? order : null,
    math,
    mathProperty,
    mathGroupTypeIndex,
    properties: propertyFilterValue(fields.properties, 'properties'),
    rawProperties: fields.properties ?? [],
  };
}

/** Sorts entities by `order` (missing counts as -1, ties keep their place) and numbers them. */
export function sortedSeries(list: SeriesFields[]): Series[] {
  if (list.length > MAX_SERIES) throw ApiError.validation(`At most ${MAX_SERIES} series are allowed in one insight.`, 'events');
  const orderOf = (f: SeriesFields) => (typeof f.order === 'number' || typeof f.order === 'string' ? Number(f.order) || 0 : -1);
  const sorted = list.map((fields, position) => ({ fields, position })).sort((a, b) => orderOf(a.fields) - orderOf(b.fields) || a.position - b.position);
  return sorted.map(({ fields }, index) => seriesFrom(fields, index));
}

/** Group type index checked for `attr` (aggregation, breakdown). */
export function groupTypeIndex(value: unknown, attr: string): number | null {
  return groupIndexOf(value, attr);
}
