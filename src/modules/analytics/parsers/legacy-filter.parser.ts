import type { DateTime } from 'luxon';
import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import { FormulaError, parseFormula } from '../model/formula';
import { resolveRange } from '../model/insight-dates';
import {
  Breakdown, DEFAULT_BREAKDOWN_LIMIT, Display, DISPLAYS, FormulaLine, InsightKind, InsightQuery, Interval, INTERVALS, MAX_BREAKDOWN_LIMIT, Series,
} from '../model/insight-query';
import {
  booleanValue, enumValue, FilterInput, integerValue, jsonValue, present, propertyFilterValue, textValue,
} from './filter-values';
import { actionNamed, entityType, ProjectActions } from './entity-values';
import { groupTypeIndex, SeriesFields, sortedSeries } from './series-values';

/** What parsing needs from outside the request: the project's zone, the clock, the earliest event. */
export interface ParseContext {
  timezone: string;
  weekStartDay: 0 | 1;
  now: DateTime;
  earliest: () => DateTime | null;
  /** The project's live actions, which `actions` entities name by id. */
  actions: ProjectActions;
}

const BREAKDOWN_TYPES = ['event', 'person', 'group', 'cohort'] as const;

/** PostHog's legacy `shown_as` values (any case). */
const SHOWN_AS = ['Volume', 'Stickiness', 'Lifecycle'];

/** Which insight a trend filter asks for: `insight` or the older `shown_as`. */
export function insightKindOf(input: FilterInput): InsightKind {
  const insight = (textValue(input, 'insight') ?? 'TRENDS').toUpperCase();
  const rawShownAs = textValue(input, 'shown_as');
  const shownAs = (rawShownAs ?? '').toLowerCase();
  if (!['TRENDS', 'STICKINESS', 'LIFECYCLE'].includes(insight)) {
    throw ApiError.validation(`insight "${insight}" is not served here: use TRENDS, STICKINESS or LIFECYCLE (funnels, retention and paths have their own endpoints).`, 'insight');
  }
  if (rawShownAs !== null && !SHOWN_AS.some((value) => value.toLowerCase() === shownAs)) {
    throw ApiError.validation(`shown_as "${rawShownAs}" is not supported: use one of ${SHOWN_AS.join(', ')}.`, 'shown_as');
  }
  if (insight === 'LIFECYCLE' || shownAs === 'lifecycle') return 'lifecycle';
  if (insight === 'STICKINESS' || shownAs === 'stickiness') return 'stickiness';
  return 'trends';
}

/** One entity of `events` or `actions`: an event name, or (type `actions`) an action of the project by id. */
function entityFields(raw: unknown, position: number, list: 'events' | 'actions', actions: ProjectActions): SeriesFields {
  if (!isJsonObject(raw)) throw ApiError.validation(`${list}[${position}] must be an object like ${list === 'events' ? '{"id": "$pageview"}' : '{"id": 12}'}.`, list);
  const action = entityType(raw, list, list) === 'actions' ? actionNamed(raw.id, actions, list) : null;
  return {
    event: raw.id, action, name: raw.name, customName: raw.custom_name, order: raw.order, math: raw.math,
    mathProperty: raw.math_property, mathGroupTypeIndex: raw.math_group_type_index, properties: raw.properties,
  };
}

function entityList(input: FilterInput, list: 'events' | 'actions'): unknown[] {
  const entities = present(input, list) ? jsonValue(input, list) : [];
  if (!Array.isArray(entities)) throw ApiError.validation(`${list} must be a JSON list of series, e.g. ${list === 'events' ? '[{"id": "$pageview"}]' : '[{"id": 12, "type": "actions"}]'}.`, list);
  return entities;
}

/** `events` and `actions` together, sorted by `order` (events first among equals, as PostHog lists them). */
export function legacySeries(input: FilterInput, actions: ProjectActions): Series[] {
  const events = entityList(input, 'events').map((raw, i) => entityFields(raw, i, 'events', actions));
  return sortedSeries([...events, ...entityList(input, 'actions').map((raw, i) => entityFields(raw, i, 'actions', actions))]);
}

/** Most bins a histogram breakdown may ask for. */
const MAX_HISTOGRAM_BINS = 100;

/** `breakdown_histogram_bin_count`, where the insight bins numbers (trends only, as in PostHog), or null. */
function histogramBinCountOf(input: FilterInput, bins: boolean, keys: unknown[]): number | null {
  if (!present(input, 'breakdown_histogram_bin_count')) return null;
  if (!bins) throw ApiError.validation('breakdown_histogram_bin_count bins trends only, as in PostHog: remove it.', 'breakdown_histogram_bin_count');
  if (keys.length > 1) throw ApiError.validation('breakdown_histogram_bin_count bins one numeric property: give breakdown one property name.', 'breakdown_histogram_bin_count');
  return integerValue(input, 'breakdown_histogram_bin_count', 10, 1, MAX_HISTOGRAM_BINS);
}

function propertyBreakdown(input: FilterInput, type: 'event' | 'person' | 'group', limit: number, raw: unknown, bins: boolean): Breakdown {
  const groupIndex = groupTypeIndex(input.breakdown_group_type_index, 'breakdown_group_type_index');
  if (type === 'group' && groupIndex === null) throw ApiError.validation('A group breakdown needs breakdown_group_type_index (0–4).', 'breakdown_group_type_index');
  const keys = Array.isArray(raw) ? raw : [raw];
  if (keys.length === 0 || keys.some((k) => typeof k !== 'string' || k === '')) {
    throw ApiError.validation('breakdown must name a property (or a JSON list of property names).', 'breakdown');
  }
  const histogramBinCount = histogramBinCountOf(input, bins, keys);
  const properties = keys.map((key) => ({ key: key as string, type, groupTypeIndex: groupIndex }));
  return { kind: 'property', properties, limit, hideOther: booleanValue(input, 'breakdown_hide_other_aggregation'), histogramBinCount, raw };
}

/** `breakdowns=[{"property": "$browser", "type": "event"}, …]`: several properties, one value list each. */
function multiBreakdown(input: FilterInput, limit: number): Breakdown {
  const list = jsonValue(input, 'breakdowns');
  if (!Array.isArray(list) || list.length === 0 || list.length > 3) throw ApiError.validation('breakdowns must be a JSON list of 1 to 3 {"property", "type"} objects.', 'breakdowns');
  const properties = list.map((item) => {
    if (!isJsonObject(item) || typeof item.property !== 'string' || item.property === '') throw ApiError.validation('Each of breakdowns needs a property name.', 'breakdowns');
    const type = item.type ?? 'event';
    if (type !== 'event' && type !== 'person' && type !== 'group') throw ApiError.validation(`breakdowns type "${String(type)}" is not supported: use event, person or group.`, 'breakdowns');
    const groupIndex = groupTypeIndex(item.group_type_index, 'breakdowns');
    if (type === 'group' && groupIndex === null) throw ApiError.validation('A group breakdown needs group_type_index (0–4).', 'breakdowns');
    return { key: item.property, type: type as 'event' | 'person' | 'group', groupTypeIndex: groupIndex };
  });
  return { kind: 'property', properties, limit, hideOther: booleanValue(input, 'breakdown_hide_other_aggregation'), histogramBinCount: null, raw: list };
}

function cohortBreakdown(raw: unknown): Breakdown {
  const list = Array.isArray(raw) ? raw : [raw];
  const cohorts = list.map((item) => {
    if (item === 'all' || item === 0 || item === '0') return 'all' as const;
    const id = Number(item);
    if (!Number.isInteger(id) || id <= 0 || id > 2_147_483_647) throw ApiError.validation('A cohort breakdown lists cohort ids (or "all").', 'breakdown');
    return id;
  });
  if (cohorts.length === 0 || cohorts.length > 25) throw ApiError.validation('A cohort breakdown lists 1 to 25 cohorts.', 'breakdown');
  return { kind: 'cohort', cohorts, raw };
}

/** The breakdown of a filter; `bins` says whether the insight cuts a numeric property in histogram bins (trends). */
export function legacyBreakdown(input: FilterInput, display: Display, bins = false): Breakdown | null {
  const limit = integerValue(input, 'breakdown_limit', display === 'WorldMap' ? 300 : DEFAULT_BREAKDOWN_LIMIT, 1, MAX_BREAKDOWN_LIMIT);
  if (present(input, 'breakdowns')) return multiBreakdown(input, limit);
  if (!present(input, 'breakdown')) return null;
  const type = enumValue(input, 'breakdown_type', BREAKDOWN_TYPES, 'event');
  let raw: unknown = input.breakdown;
  if (typeof raw === 'string' && /^[[\d"]/.test(raw.trim())) raw = jsonValue(input, 'breakdown');
  if (type === 'cohort') return cohortBreakdown(raw);
  return propertyBreakdown(input, type, limit, raw, bins);
}

function checkedFormula(formula: string, seriesCount: number): string {
  try {
    parseFormula(formula, seriesCount);
  } catch (error) {
    if (error instanceof FormulaError) throw ApiError.validation(`formula "${formula}" ${error.message}: use series letters (A, B, …), numbers, + - * / and parentheses.`, 'formula');
    throw error;
  }
  return formula;
}

/** At most this many formula lines in one insight. */
const MAX_FORMULAS = 10;

/**
 * The formula lines: `formulas` (texts, or `{formula, custom_name}` as PostHog's formulaNodes), else one `formula`.
 * Blank formulas are none, as PostHog's UI sends an empty one.
 */
export function formulaLines(input: FilterInput, seriesCount: number): FormulaLine[] {
  const raw: unknown[] = present(input, 'formulas') ? listOf(jsonValue(input, 'formulas')) : [textValue(input, 'formula')];
  if (raw.length > MAX_FORMULAS) throw ApiError.validation(`At most ${MAX_FORMULAS} formulas are allowed in one insight.`, 'formula');
  return raw.flatMap((item) => {
    const node = isJsonObject(item) ? item : { formula: item };
    if (node.formula === null || node.formula === undefined || (typeof node.formula === 'string' && node.formula.trim() === '')) return [];
    if (typeof node.formula !== 'string') throw ApiError.validation('Each formula must be text, e.g. "A+B" or {"formula": "A/B*100", "custom_name": "Conversion"}.', 'formula');
    const customName = typeof node.custom_name === 'string' && node.custom_name !== '' ? node.custom_name : null;
    return [{ formula: checkedFormula(node.formula, seriesCount), customName }];
  });
}

function listOf(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw ApiError.validation('formulas must be a JSON list of formulas, e.g. ["A+B"] or [{"formula": "A+B"}].', 'formula');
  return value;
}

/**
 * PostHog's trend options this service does not compute, when set to anything but their neutral value: a 400 saying so,
 * where ignoring them would answer another question with a 200.
 */
const UNSUPPORTED_OPTIONS: Array<{ key: string; neutral: (value: unknown) => boolean; detail: string }> = [
  { key: 'compare_to', neutral: () => false, detail: 'compare_to is not supported by this server: compare=true compares with the previous period of the same length.' },
  { key: 'smoothing_intervals', neutral: (v) => Number(v) === 1, detail: 'smoothing_intervals is not supported by this server: leave it out (or 1) for the points as they are.' },
  { key: 'breakdown_normalize_url', neutral: (v) => v === false || v === 'false', detail: 'breakdown_normalize_url is not supported by this server: break down by the URL as it is.' },
  { key: 'sampling_factor', neutral: (v) => Number(v) === 1, detail: 'sampling_factor is not supported by this server: insights read every event.' },
];

function refuseUnsupported(input: FilterInput): void {
  for (const { key, neutral, detail } of UNSUPPORTED_OPTIONS) {
    if (present(input, key) && !neutral(input[key])) throw ApiError.validation(detail, key);
  }
}

/** The legacy filter (query string and/or JSON body) as one insight query. */
export function parseLegacyFilter(input: FilterInput, context: ParseContext, kind: InsightKind = insightKindOf(input)): InsightQuery {
  refuseUnsupported(input);
  const interval: Interval = enumValue(input, 'interval', INTERVALS, 'day', (value) => value.toLowerCase());
  // A funnel's `display` (FunnelViz, ActionsLineGraph) only chooses its viz type, read by the funnel parser; paths have none.
  const display: Display = kind === 'funnels' || kind === 'paths' ? 'ActionsLineGraph' : enumValue(input, 'display', DISPLAYS, 'ActionsLineGraph');
  const series = legacySeries(input, context.actions);
  // PostHog's lifecycle counts weeks from Monday (toStartOfInterval's weeks) where its other insights start them on Sunday.
  const weekStartDay = kind === 'lifecycle' ? 1 : context.weekStartDay;
  const range = resolveRange(
    { dateFrom: textValue(input, 'date_from'), dateTo: textValue(input, 'date_to'), interval, zone: context.timezone, now: context.now, explicit: booleanValue(input, 'explicit_date'), earliest: context.earliest },
    weekStartDay,
  );
  const breakdown = kind === 'trends' ? legacyBreakdown(input, display, true) : null;
  return {
    kind,
    series,
    range,
    interval,
    timezone: context.timezone,
    weekStartDay,
    properties: propertyFilterValue(input.properties, 'properties'),
    filterTestAccounts: booleanValue(input, 'filter_test_accounts'),
    breakdown,
    breakdownOffset: breakdown ? integerValue(input, 'offset', 0, 0, 1_000_000) : 0,
    compare: (kind === 'trends' || kind === 'stickiness') && booleanValue(input, 'compare'),
    formulas: kind === 'trends' ? formulaLines(input, series.length) : [],
    display,
    aggregationGroupTypeIndex: groupTypeIndex(input.aggregation_group_type_index, 'aggregation_group_type_index'),
  };
}
