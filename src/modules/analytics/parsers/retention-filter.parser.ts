import type { DateTime } from 'luxon';
import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import { intervalStart, parseInsightDate } from '../model/insight-dates';
import { InsightQuery, Interval, INTERVALS, RetentionActorsSelection, RetentionEntity, RetentionOptions } from '../model/insight-query';
import { pageOf } from './actors-request.parser';
import { actionNamed, entityType, ProjectActions } from './entity-values';
import { booleanValue, enumValue, FilterInput, integerValue, jsonValue, present, propertyFilterValue, textValue } from './filter-values';
import { legacyBreakdown, ParseContext } from './legacy-filter.parser';
import { groupTypeIndex } from './series-values';

/**
 * PostHog's retention filter: `target_entity` and `returning_entity`, `retention_type`, `period` and
 * `total_intervals`, anchored at `date_to` (`date_from` is derived, whatever was sent). The cohorts are
 * the `total_intervals` periods ending with the one holding `date_to`.
 */

const MAX_RETENTION_INTERVALS = 100;
/** Retention's periods, as PostHog's: no minutes. */
const RETENTION_PERIODS = INTERVALS.filter((interval) => interval !== 'minute');
const DEFAULT_INTERVALS = 11;
const RETENTION_TYPES = ['retention_recurring', 'retention_first_time'] as const;
const DEFAULT_ENTITY = { id: '$pageview', type: 'events' };

function entityOf(input: FilterInput, key: string, fallback: unknown, actions: ProjectActions): RetentionEntity {
  const raw = present(input, key) ? jsonValue(input, key) : fallback;
  if (!isJsonObject(raw)) throw ApiError.validation(`${key} must be an event entity, e.g. {"id": "$pageview", "type": "events"}.`, key);
  const properties = propertyFilterValue(raw.properties, key);
  if (entityType(raw, 'events', key) === 'actions') {
    const action = actionNamed(raw.id, actions, key);
    return { event: null, action, name: action.name, properties, raw };
  }
  if (raw.id !== null && raw.id !== undefined && typeof raw.id !== 'string') throw ApiError.validation(`${key}.id must be an event name (or null for any event).`, key);
  const event = typeof raw.id === 'string' && raw.id !== '' ? raw.id : null;
  return { event, action: null, name: typeof raw.name === 'string' ? raw.name : (event ?? 'All events'), properties, raw };
}

/** The period, as PostHog spells it (Hour, Day, Week, Month) or in lower case. */
function periodOf(input: FilterInput): Interval {
  return enumValue(input, 'period', RETENTION_PERIODS, 'day', (v) => v.toLowerCase());
}

/** Which API asked: the legacy retention route, or a RetentionQuery (they place monthly cohorts differently). */
export type RetentionDoor = 'legacy' | 'query';

/**
 * Cohort 0's start: one period past the one holding `date_to`, back `total_intervals` periods. PostHog's legacy route
 * keeps `date_to`'s day of the month for monthly cohorts (the 10th of each month for a `date_to` on a 10th) while still
 * counting events by calendar month; its RetentionQuery starts them on the 1st
 * (https://github.com/PostHog/posthog/blob/master/posthog/models/filters/mixins/retention.py, `date_from`).
 */
function firstCohort(anchor: DateTime, period: Interval, totalIntervals: number, weekStartDay: 0 | 1, door: RetentionDoor): DateTime {
  if (door === 'legacy' && period === 'month') return anchor.startOf('day').plus({ months: 1 }).minus({ months: totalIntervals });
  const last = intervalStart(anchor, period, weekStartDay);
  return last.minus({ [`${period}s`]: totalIntervals - 1 });
}

export function parseRetentionFilter(input: FilterInput, context: ParseContext, door: RetentionDoor): InsightQuery {
  const period = periodOf(input);
  const totalIntervals = integerValue(input, 'total_intervals', DEFAULT_INTERVALS, 1, MAX_RETENTION_INTERVALS);
  const typeName = enumValue(input, 'retention_type', RETENTION_TYPES, 'retention_recurring');
  const target = entityOf(input, 'target_entity', DEFAULT_ENTITY, context.actions);
  const returning = present(input, 'returning_entity') ? entityOf(input, 'returning_entity', DEFAULT_ENTITY, context.actions) : target;
  const dateTo = textValue(input, 'date_to');
  const anchor = dateTo === null ? context.now.setZone(context.timezone) : parseInsightDate(dateTo, 'date_to', context.timezone, context.now).at.setZone(context.timezone);
  const from = firstCohort(anchor, period, totalIntervals, context.weekStartDay, door);
  const to = from.plus({ [`${period}s`]: totalIntervals }).minus({ milliseconds: 1 });
  const retention: RetentionOptions = { type: typeName === 'retention_first_time' ? 'first_time' : 'recurring', totalIntervals, target, returning };
  const breakdown = legacyBreakdown(input, 'ActionsTable');
  if (breakdown?.kind === 'cohort') throw ApiError.validation('Retention breaks down by event, person or group properties: use breakdown_type event, person or group.', 'breakdown_type');
  if (breakdown?.kind === 'property' && breakdown.properties.length > 1) throw ApiError.validation('Retention breaks down by one property at a time: give a single breakdown.', 'breakdowns');
  return {
    kind: 'retention',
    series: [],
    range: { from, to, requestedFrom: null, requestedTo: dateTo, explicit: true },
    interval: period,
    timezone: context.timezone,
    weekStartDay: context.weekStartDay,
    properties: propertyFilterValue(input.properties, 'properties'),
    filterTestAccounts: booleanValue(input, 'filter_test_accounts'),
    breakdown,
    breakdownOffset: 0,
    compare: false,
    formulas: [],
    display: 'ActionsTable',
    aggregationGroupTypeIndex: groupTypeIndex(input.aggregation_group_type_index, 'aggregation_group_type_index'),
    retention,
  };
}

/**
 * A persons request's cohort: `selected_interval`, or `breakdown_values` (`[i]` names cohort i of a table
 * without breakdown, `[value]` a breakdown line), and the page.
 */
export function retentionActorsSelection(query: InsightQuery, input: FilterInput): RetentionActorsSelection {
  const total = query.retention?.totalIntervals ?? DEFAULT_INTERVALS;
  const { limit, offset } = pageOf(input);
  const page = { limit, offset };
  if (present(input, 'breakdown_values')) {
    const list = jsonValue(input, 'breakdown_values');
    if (!Array.isArray(list) || list.length === 0) throw ApiError.validation('breakdown_values must be a JSON list: [cohort index], or [value] with a breakdown.', 'breakdown_values');
    if (query.breakdown) return { breakdownValue: typeof list[0] === 'string' ? list[0] : JSON.stringify(list[0]), ...page };
    const cohort = list[0];
    if (typeof cohort !== 'number' || !Number.isInteger(cohort) || cohort < 0 || cohort >= total) {
      throw ApiError.validation(`breakdown_values must name a cohort: [i] with i from 0 to ${total - 1}.`, 'breakdown_values');
    }
    return { cohort, ...page };
  }
  if (query.breakdown) throw ApiError.validation('A broken-down retention table lists persons per line: give breakdown_values=["<value>"].', 'breakdown_values');
  return { cohort: integerValue(input, 'selected_interval', 0, 0, total - 1), ...page };
}
