import type { DateTime } from 'luxon';
import { ApiError } from '../../../common/errors/api-error';
import { intervalStart, parseInsightDate } from '../model/insight-dates';
import { ActorsSelection, InsightQuery, isOtherValue, LIFECYCLE_STATUSES, LifecycleStatus, MAX_BREAKDOWN_LIMIT } from '../model/insight-query';
import { enumValue, FilterInput, integerValue, jsonValue, nameListValue, present, textValue } from './filter-values';
import { seriesFrom } from './series-values';

/**
 * The persons endpoints' own parameters, on top of the insight filter: which series (`entity_*`), which
 * point (the filter's dates, `breakdown_value`, `stickiness_days`, `target_date` + `lifecycle_type`),
 * `search` and the page (`limit` 100 by default, `offset`).
 */

export const DEFAULT_ACTORS_LIMIT = 100;

/**
 * PostHog's get_target_entity: `entity_order`, else the first series with that event and math, else a new
 * one. Without either, `firstByDefault` (lifecycle) takes the first series; otherwise only a single series is.
 */
export function targetSeries(query: InsightQuery, input: FilterInput, firstByDefault = false): InsightQuery {
  const entityType = textValue(input, 'entity_type') ?? textValue(input, 'type') ?? 'events';
  if (entityType !== 'events' && entityType !== 'actions') throw ApiError.validation(`entity_type "${entityType}" is not supported: use events or actions.`, 'entity_type');
  if (present(input, 'entity_order')) {
    const index = integerValue(input, 'entity_order', 0, 0, Math.max(0, query.series.length - 1));
    if (!query.series[index]) throw ApiError.validation('entity_order names no series of events.', 'entity_order');
    return { ...query, series: [{ ...query.series[index], index: 0 }] };
  }
  const entityId = textValue(input, 'entity_id') ?? textValue(input, 'entityId');
  const math = textValue(input, 'entity_math') ?? 'total';
  if (entityId === null) {
    if (query.series.length === 1 || (firstByDefault && query.series.length > 1)) return { ...query, series: query.series.slice(0, 1) };
    throw ApiError.validation('An entity must be provided for target entity to be determined: entity_id (and entity_math), or entity_order.', 'entity_id');
  }
  if (entityType === 'actions') {
    const found = query.series.find((s) => String(s.action?.id) === entityId && s.math === math);
    if (!found) throw ApiError.validation(`entity_id ${entityId} names no action series of this insight (with entity_math ${math}).`, 'entity_id');
    return { ...query, series: [{ ...found, index: 0 }] };
  }
  const found = query.series.find((s) => s.action === null && s.event === entityId && s.math === math);
  const series = found ?? seriesFrom({ event: entityId, name: entityId, customName: null, order: null, math, mathProperty: null, mathGroupTypeIndex: null, properties: null }, 0);
  return { ...query, series: [{ ...series, index: 0 }] };
}

function breakdownValueOf(query: InsightQuery, input: FilterInput): ActorsSelection['breakdownValue'] {
  if (!query.breakdown || !present(input, 'breakdown_value')) return undefined;
  if (query.breakdown.kind === 'cohort') {
    const raw = textValue(input, 'breakdown_value');
    return raw === 'all' || raw === '0' ? 'all' : integerValue(input, 'breakdown_value', 0, 1, 2_147_483_647);
  }
  if (query.breakdown.properties.length === 1) return textValue(input, 'breakdown_value') ?? '';
  const list = jsonValue(input, 'breakdown_value');
  if (!Array.isArray(list) || list.length !== query.breakdown.properties.length) {
    throw ApiError.validation(`breakdown_value must be a JSON list of ${query.breakdown.properties.length} values, one per breakdown property.`, 'breakdown_value');
  }
  return list.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}

/** `limit` (100 by default, at most 1,000), `offset` and `search` of any persons request. */
export function pageOf(input: FilterInput): { limit: number; offset: number; search?: string } {
  const search = textValue(input, 'search') ?? undefined;
  return { limit: integerValue(input, 'limit', DEFAULT_ACTORS_LIMIT, 1, MAX_BREAKDOWN_LIMIT), offset: integerValue(input, 'offset', 0, 0, 10_000_000), search };
}

/** The persons of one trends point: the query's range is the point's. */
export function trendsSelection(query: InsightQuery, input: FilterInput): ActorsSelection {
  const breakdownValue = breakdownValueOf(query, input);
  const otherThan = isOtherValue(breakdownValue) && present(input, 'breakdown_other_than') ? nameListValue(input, 'breakdown_other_than', MAX_BREAKDOWN_LIMIT) : undefined;
  return { seriesIndex: 0, range: query.range, breakdownValue, ...(otherThan ? { otherThan } : {}), ...pageOf(input) };
}

export function stickinessSelection(query: InsightQuery, input: FilterInput): ActorsSelection {
  if (!present(input, 'stickiness_days')) throw ApiError.validation('stickiness_days is required: the number of intervals the persons were active in.', 'stickiness_days');
  const stickinessDays = integerValue(input, 'stickiness_days', 1, 1, 10_000);
  return { seriesIndex: 0, range: query.range, stickinessDays, ...pageOf(input) };
}

/** The start of the interval holding a date given as `attr` (a lifecycle period, an actors query's day). */
export function periodStart(raw: string, attr: string, query: InsightQuery, now: DateTime): DateTime {
  return intervalStart(parseInsightDate(raw, attr, query.timezone, now).at.setZone(query.timezone), query.interval, query.weekStartDay);
}

/** Lifecycle persons: `target_date` (the period) and `lifecycle_type` are required, as in PostHog. */
export function lifecycleSelection(query: InsightQuery, input: FilterInput, now: DateTime): ActorsSelection {
  const raw = textValue(input, 'target_date');
  if (raw === null) throw ApiError.validation('Must include specified date: target_date is the start of the period to list (e.g. 2024-01-31).', 'target_date');
  if (!present(input, 'lifecycle_type')) throw ApiError.validation('Must include lifecycle type: lifecycle_type is one of new, returning, resurrecting, dormant.', 'lifecycle_type');
  const status: LifecycleStatus = enumValue(input, 'lifecycle_type', LIFECYCLE_STATUSES, 'new');
  return { seriesIndex: 0, range: query.range, lifecycle: { status, target: periodStart(raw, 'target_date', query, now) }, ...pageOf(input) };
}
