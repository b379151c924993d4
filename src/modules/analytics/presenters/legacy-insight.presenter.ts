import type { DateTime } from 'luxon';
import { bucketDay, bucketLabel, nextInterval } from '../model/insight-dates';
import { AGGREGATE_DISPLAYS, InsightQuery, Series } from '../model/insight-query';
import type { InsightResult, SeriesResult } from '../model/insight-result';
import type { FilterInput } from '../parsers/filter-values';

/**
 * PostHog's legacy insight reply (`/insights/trend/`): series with `data`, `labels`, `days`, and for each
 * point a `persons_urls` entry whose URL lists exactly the persons behind it. The URLs carry the whole
 * filter plus the point's own range, given as exact instants (`explicit_date`), so they mean the same
 * thing whichever interval, zone or compare period they came from.
 */

/** Parameters a point's URL sets itself, or that make no sense to carry over. */
const POINT_PARAMS = new Set([
  'date_from', 'date_to', 'explicit_date', 'refresh', 'offset', 'limit', 'breakdown_value', 'entity_id', 'entityId', 'entity_type', 'type',
  'entity_math', 'entity_order', 'stickiness_days', 'target_date', 'lifecycle_type', 'cache_invalidation_key', 'search', 'format', 'client_query_id',
  'funnel_step', 'funnel_custom_steps', 'funnel_step_breakdown', 'entrance_period_start', 'drop_off',
  'funnel_correlation_person_entity', 'funnel_correlation_property_values', 'funnel_correlation_person_converted', 'funnel_correlation_person_limit',
  'funnel_correlation_person_offset', 'selected_interval', 'breakdown_values', 'breakdown_other_than',
]);

export interface PresentContext {
  projectId: number;
  input: FilterInput;
}

/** The filter as the reply echoes it: JSON parameters decoded. */
export function echoedFilter(input: FilterInput): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'refresh' || key === 'format') continue;
    filter[key] = typeof value === 'string' && /^\s*[[{]/.test(value) ? safeJson(value) : value;
  }
  return filter;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function personsUrl(ctx: PresentContext, path: string, point: Record<string, string | number>): { filter: Record<string, unknown>; url: string } {
  const params = new URLSearchParams(carriedParams(ctx));
  for (const [key, value] of Object.entries(point)) params.set(key, String(value));
  return { filter: point, url: `api/projects/${ctx.projectId}/persons/${path}/?${params.toString()}` };
}

/** The filter's parameters every point's URL carries over, worked out once per reply (a reply has a URL per point). */
const carried = new WeakMap<PresentContext, Array<[string, string]>>();

function carriedParams(ctx: PresentContext): Array<[string, string]> {
  let params = carried.get(ctx);
  if (!params) {
    params = Object.entries(ctx.input).flatMap(([key, value]): Array<[string, string]> =>
      POINT_PARAMS.has(key) || value === undefined || value === null ? [] : [[key, typeof value === 'string' ? value : JSON.stringify(value)]],
    );
    carried.set(ctx, params);
  }
  return params;
}

function entityParams(series: Series): Record<string, string | number> {
  const entity = series.action ? { entity_id: series.action.id, entity_type: 'actions' } : { ...(series.event === null ? {} : { entity_id: series.event }), entity_type: 'events' };
  return { ...entity, entity_math: series.math, entity_order: series.index };
}

function breakdownParam(line: SeriesResult): Record<string, string | number> {
  const value = line.breakdownValue;
  if (value === null) return {};
  // A point's URL holds its own range only, over which the values would rank otherwise: the Other line names those it leaves out.
  const params: Record<string, string | number> = { breakdown_value: Array.isArray(value) ? JSON.stringify(value) : value };
  if (line.otherThan) params.breakdown_other_than = JSON.stringify(line.otherThan);
  return params;
}

/** A point's exact range: its bucket, clipped to the insight's range (or the whole range so far, cumulative). */
function pointRange(query: InsightQuery, line: SeriesResult, start: DateTime): { date_from: string; date_to: string; explicit_date: string } {
  const end = nextInterval(start, query.interval).minus({ milliseconds: 1 });
  const from = query.display === 'ActionsLineGraphCumulative' || start < line.range.from ? line.range.from : start;
  const to = end > line.range.to ? line.range.to : end;
  return { date_from: from.toISO() ?? '', date_to: to.toISO() ?? '', explicit_date: 'true' };
}

function action(series: Series) {
  return {
    id: series.action?.id ?? series.event,
    type: series.action ? 'actions' : 'events',
    order: series.order ?? series.index,
    name: series.name,
    custom_name: series.customName,
    math: series.math,
    math_property: series.mathProperty,
    math_group_type_index: series.mathGroupTypeIndex,
    properties: series.rawProperties,
  };
}

/** A period's texts per bucket: labels, days and each point's range. */
interface BucketTexts {
  labels: string[];
  days: string[];
  ranges: Array<ReturnType<typeof pointRange>>;
}

/**
 * The bucket texts of a line, worked out once for every line sharing its buckets (a series' lines in one period
 * share one list, and their range): date arithmetic per point is most of the cost of presenting many lines.
 */
const bucketTexts = new WeakMap<DateTime[], BucketTexts>();

function textsOf(query: InsightQuery, line: SeriesResult): BucketTexts {
  let texts = bucketTexts.get(line.buckets);
  if (!texts) {
    texts = {
      labels: line.buckets.map((b) => bucketLabel(b, query.interval)),
      days: line.buckets.map((b) => bucketDay(b, query.interval)),
      ranges: line.buckets.map((b) => pointRange(query, line, b)),
    };
    bucketTexts.set(line.buckets, texts);
  }
  return texts;
}

function trendLine(query: InsightQuery, line: SeriesResult, ctx: PresentContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    action: line.series ? action(line.series) : null,
    label: line.label,
    filter: echoedFilter(ctx.input),
  };
  if (line.breakdownValue !== null) body.breakdown_value = line.breakdownValue;
  if (line.compareLabel !== null) Object.assign(body, { compare: true, compare_label: line.compareLabel });
  const wholeRange = { date_from: line.range.from.toISO() ?? '', date_to: line.range.to.toISO() ?? '', explicit_date: 'true' };
  if (AGGREGATE_DISPLAYS.has(query.display)) {
    Object.assign(body, { count: 0, data: [], days: [], labels: [], aggregated_value: line.aggregatedValue ?? 0 });
    if (line.series) body.persons = personsUrl(ctx, 'trends', { ...entityParams(line.series), ...wholeRange, ...breakdownParam(line) });
    return body;
  }
  const texts = textsOf(query, line);
  Object.assign(body, { count: line.data.reduce((sum, v) => sum + v, 0), data: line.data, labels: texts.labels, days: texts.days });
  const series = line.series;
  if (series) body.persons_urls = texts.ranges.map((range) => personsUrl(ctx, 'trends', { ...entityParams(series), ...range, ...breakdownParam(line) }));
  return body;
}

function stickinessLine(query: InsightQuery, line: SeriesResult, ctx: PresentContext): Record<string, unknown> {
  const series = line.series as Series;
  const range = { date_from: line.range.from.toISO() ?? '', date_to: line.range.to.toISO() ?? '', explicit_date: 'true' };
  const body: Record<string, unknown> = {
    action: action(series),
    label: line.label,
    count: line.data.reduce((sum, v) => sum + v, 0),
    data: line.data,
    labels: line.data.map((_, i) => `${i + 1} ${query.interval}${i === 0 ? '' : 's'}`),
    days: line.data.map((_, i) => i + 1),
    persons_urls: line.data.map((_, i) => personsUrl(ctx, 'stickiness', { ...entityParams(series), stickiness_days: i + 1, ...range })),
    filter: echoedFilter(ctx.input),
  };
  if (line.compareLabel !== null) Object.assign(body, { compare: true, compare_label: line.compareLabel });
  return body;
}

function lifecycleLine(query: InsightQuery, line: SeriesResult, ctx: PresentContext): Record<string, unknown> {
  const series = line.series as Series;
  return {
    action: action(series),
    label: line.label,
    status: line.lifecycleStatus,
    count: line.data.reduce((sum, v) => sum + v, 0),
    data: line.data,
    labels: line.buckets.map((b) => bucketLabel(b, query.interval)),
    days: line.buckets.map((b) => bucketDay(b, query.interval)),
    persons_urls: line.buckets.map((b) =>
      personsUrl(ctx, 'lifecycle', { ...entityParams(series), target_date: b.toISO() ?? '', lifecycle_type: line.lifecycleStatus ?? 'new' }),
    ),
    filter: echoedFilter(ctx.input),
  };
}

/** The `result` list of a legacy insight reply. */
export function legacyResult(query: InsightQuery, result: InsightResult, ctx: PresentContext): Array<Record<string, unknown>> {
  if (query.kind === 'stickiness') return result.series.map((line) => stickinessLine(query, line, ctx));
  if (query.kind === 'lifecycle') return result.series.map((line) => lifecycleLine(query, line, ctx));
  return result.series.map((line) => trendLine(query, line, ctx));
}
