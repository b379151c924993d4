import { ChParams } from '../engine/ch-sql';
import { binOfLabel, histogramLevels } from '../model/histogram-bins';
import { Breakdown, CountPerActorMath, DateRange, FirstTimeMath, HistogramBin, InsightQuery, isCountPerActor, PERCENTILES, Series } from '../model/insight-query';
import { bindDouble } from '../clickhouse/sql-text.ch';
import {
  actorSql, breakdownPropertySql, bucketSql, bucketTextSql, BuiltSql, cohortMemberSql, entityFilters, entityWhere, eventsFrom, groupKeySql, instantSql,
  joinNeeds, queryFiltersWhere, seriesWhere, SqlContext,
} from './event-scope.sql';
import { HOT_EVENT_PROPERTIES } from '../engine/schema/hot-properties';

/**
 * Trend data points as SQL: one query per series (and cohort), returning rows of
 * `(breakdown_value, bucket, value)`; buckets are local wall times as text, zero-filling is the caller's.
 */

/** Which slice of a breakdown a query reads: the listed property values, or one cohort. */
export type BreakdownSlice =
  | { kind: 'values'; values: string[] }
  /** One value per breakdown property: the persons of one breakdown line. */
  | { kind: 'point'; values: string[] }
  | { kind: 'cohort'; cohort: number | 'all' }
  /** Every value but the ranked ones: the Other line. */
  | { kind: 'other'; ranked: string[] }
  | null;

/** Decimal text a number is read from (as JavaScript's Number() would, bounded so the cast never fails). */
const NUMERIC_TEXT = String.raw`^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,2})?\s*$`;

/**
 * A numeric event property as Float64; anything else (text, too large, absent) is NULL and ignored. The value's JSON
 * text is read with one parse of the properties (a number as written, a string as its quoted literal, decoded only
 * when it is one): asking its type, then its text, parsed them three times (a sum over 1 M events: 0.45 s against
 * 0.36 s, the scan alone 0.28 s).
 */
export function numericPropertySql(key: string, p: ChParams): string {
  const raw = `JSONExtractRaw(e.properties, ${p.add(key, 'String')})`;
  const text = `JSONExtractString(${raw})`;
  const bounded = (number: string) => `if(abs(toFloat64OrZero(${number})) < 1e300, toFloat64OrNull(${number}), NULL)`;
  return `multiIf(startsWith(${raw}, '"'), if(length(${text}) < 100 AND match(${text}, ${p.add(NUMERIC_TEXT, 'String')}), ${bounded(`trimBoth(${text})`)}, NULL),
      match(${raw}, '^-?[0-9]'), ${bounded(raw)}, NULL)`;
}

/** Who a series counts: persons, or groups of one type (`unique_group`, a count per group, or aggregation by groups). */
export type ActorKind = { kind: 'person' } | { kind: 'group'; groupTypeIndex: number };

export function actorKindOf(query: InsightQuery, series: Series): ActorKind {
  const byGroup = series.math === 'unique_group' || isCountPerActor(series.math);
  if (byGroup && series.mathGroupTypeIndex !== null) return { kind: 'group', groupTypeIndex: series.mathGroupTypeIndex };
  if (query.aggregationGroupTypeIndex !== null) return { kind: 'group', groupTypeIndex: query.aggregationGroupTypeIndex };
  return { kind: 'person' };
}

/** The actor of an event as a series counts it (see {@link actorKindOf}); NULL when the event has none. */
export function seriesActorSql(query: InsightQuery, series: Series, ctx: SqlContext, p: ChParams): string {
  const kind = actorKindOf(query, series);
  return kind.kind === 'person' ? actorSql({ ...query, aggregationGroupTypeIndex: null }, ctx, p) : groupKeySql(kind.groupTypeIndex, ctx, p);
}

/** What the distinct-count maths count: persons (or groups), a group type's keys, sessions; null for others. */
export function distinctTargetSql(query: InsightQuery, series: Series, ctx: SqlContext, p: ChParams): string | null {
  switch (series.math) {
    case 'dau':
    case 'weekly_active':
    case 'monthly_active':
      return actorSql(query, ctx, p);
    case 'unique_group':
      return groupKeySql(series.mathGroupTypeIndex ?? 0, ctx, p);
    case 'unique_session':
      return `nullIf(ifNull(e.${HOT_EVENT_PROPERTIES.get('$session_id')}, ''), '')`;
    default:
      return null;
  }
}

/** What one data point computes over its events, for the maths that are not distinct counts. */
export function pointValueSql(series: Series, p: ChParams): string {
  return series.math === 'total' ? 'toFloat64(count())' : propertyAggregateSql(series, p);
}

/** sum/avg/min/max or an exact percentile (interpolated, as PostgreSQL's percentile_cont) of a numeric event property. */
export function propertyAggregateSql(series: Series, p: ChParams): string {
  const value = numericPropertySql(series.mathProperty ?? '', p);
  if (series.math in PERCENTILES) return `if(count(${value}) = 0, NULL, quantileExactInclusive(${PERCENTILES[series.math]})(${value}))`;
  const aggregate = { sum: 'sum', avg: 'avg', min: 'min', max: 'max' }[series.math as 'sum'];
  // Over no numeric value the aggregate is NULL, as in SQL (ClickHouse's sum would say 0).
  return `if(count(${value}) = 0, NULL, toFloat64(${aggregate}(${value})))`;
}

/** A count-per-actor math's aggregate over the actors' event counts `column` (exact percentiles, as the property maths). */
function countAggregateSql(math: CountPerActorMath, column: string): string {
  const prefix = math.slice(0, math.indexOf('_'));
  if (prefix in PERCENTILES) return `quantileExactInclusive(${PERCENTILES[prefix]})(${column})`;
  return `${prefix}(${column})`;
}

/** The breakdown value of an event: one property's text, a JSON list of several, or its histogram bin's label. */
export function breakdownValueSql(query: InsightQuery, ctx: SqlContext, p: ChParams): string {
  if (query.breakdown?.kind !== 'property') return 'CAST(NULL AS Nullable(String))';
  if (query.breakdown.bins) return binLabelSql(numericBreakdownSql(query, p), query.breakdown.bins, p);
  const parts = query.breakdown.properties.map((b, i) => breakdownPropertySql(b.key, b.type, b.groupTypeIndex, i, p));
  return parts.length === 1 ? parts[0] : `toJSONString([${parts.join(', ')}])`;
}

/** PostHog's label for a value in no bin (not a number). */
const NO_BIN = '["",""]';

/** A single-property breakdown's value as a number (NULL when it is none). */
function numericBreakdownSql(query: InsightQuery, p: ChParams): string {
  const [b] = (query.breakdown as Breakdown & { kind: 'property' }).properties;
  return `toFloat64OrNull(${breakdownPropertySql(b.key, b.type, b.groupTypeIndex, 0, p)})`;
}

function binLabelSql(value: string, bins: HistogramBin[], p: ChParams): string {
  const cases = bins.map((bin) => `${value} >= ${bindDouble(p, bin.lo)} AND ${value} < ${bindDouble(p, bin.hi)}, ${p.add(bin.label, 'String')}`);
  return `multiIf(${[...cases, p.add(NO_BIN, 'String')].join(', ')})`;
}

/** The edges of a histogram breakdown's bins over every series' events in the range (see model/histogram-bins.ts). */
export function histogramEdgesSql(query: InsightQuery, ctx: SqlContext, binCount: number): BuiltSql {
  const p = new ChParams();
  const scopes = query.series.map((s) => `(${seriesWhere(query, s, query.range, ctx, p).join(' AND ')})`);
  const from = eventsFrom(joinNeeds(query, ctx, query.series.flatMap(entityFilters), false), ctx, p);
  // Exact quantiles interpolated between neighbours: what ClickHouse's sampling `quantiles` gives on fewer than 8,192 values.
  return p.sql(`SELECT arrayCompact(arrayMap((x) -> floor(x, 2), quantilesExactInclusive(${histogramLevels(binCount).join(', ')})(value))) AS edges
    FROM (SELECT ${numericBreakdownSql(query, p)} AS value FROM ${from} WHERE (${scopes.join(' OR ')})) WHERE value IS NOT NULL`);
}

/** The breakdown value a point is keyed by: the event's when the slice lists values (one line each), else none. */
function sliceBreakdownSql(query: InsightQuery, slice: BreakdownSlice, ctx: SqlContext, p: ChParams): string {
  return slice?.kind === 'values' ? breakdownValueSql(query, ctx, p) : 'CAST(NULL AS Nullable(String))';
}

/** The conditions that put an event in a breakdown slice. */
function sliceWhere(query: InsightQuery, slice: BreakdownSlice, ctx: SqlContext, p: ChParams): string[] {
  if (slice?.kind === 'values') return [`${breakdownValueSql(query, ctx, p)} IN ${p.add(slice.values, 'Array(String)')}`];
  const bin = slice?.kind === 'point' && query.breakdown?.kind === 'property' && query.breakdown.histogramBinCount !== null ? binOfLabel(slice.values[0] ?? '') : null;
  if (bin) {
    const value = numericBreakdownSql(query, p);
    return [`${value} >= ${bindDouble(p, bin.lo)}`, `${value} < ${bindDouble(p, bin.hi)}`];
  }
  if (slice?.kind === 'point' && query.breakdown?.kind === 'property') {
    return query.breakdown.properties.map((b, i) => `${breakdownPropertySql(b.key, b.type, b.groupTypeIndex, i, p)} = ${p.add(slice.values[i] ?? '', 'String')}`);
  }
  if (slice?.kind === 'cohort' && slice.cohort !== 'all') return [cohortMemberSql(slice.cohort, ctx, p)];
  if (slice?.kind === 'other') return [`NOT has(${p.add(slice.ranked, 'Array(String)')}, ${breakdownValueSql(query, ctx, p)})`];
  return [];
}

function sliceFrom(query: InsightQuery, series: Series, slice: BreakdownSlice, ctx: SqlContext, p: ChParams, actor: boolean): string {
  return eventsFrom(joinNeeds(query, ctx, entityFilters(series), actor || slice?.kind === 'cohort'), ctx, p);
}

/** FROM and WHERE of one series' events in a range, restricted to a breakdown slice. */
export function sliceScope(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, p: ChParams, actor: boolean) {
  const where = [...seriesWhere(query, series, range, ctx, p), ...sliceWhere(query, slice, ctx, p)];
  return { from: sliceFrom(query, series, slice, ctx, p, actor), where: where.join(' AND ') };
}

/** The breakdown values with the most events over every series, one page of them (plus one to tell `next`). */
export function topBreakdownValuesSql(query: InsightQuery, ctx: SqlContext, limit: number, offset: number): BuiltSql {
  const p = new ChParams();
  const scopes = query.series.map((s) => `(${seriesWhere(query, s, query.range, ctx, p).join(' AND ')})`);
  const from = eventsFrom(joinNeeds(query, ctx, query.series.flatMap(entityFilters), false), ctx, p);
  const value = breakdownValueSql(query, ctx, p);
  return p.sql(`SELECT value, toString(n) AS events FROM (SELECT ${value} AS value, count() AS n FROM ${from} WHERE (${scopes.join(' OR ')}) GROUP BY value)
    ORDER BY ${rankOrderSql('n', 'value')} LIMIT ${p.add(limit + 1, 'UInt64')} OFFSET ${p.add(offset, 'UInt64')}`);
}

/** The order breakdown values rank in: most events first, ties in byte order of the value (as in every deployment). */
function rankOrderSql(events: string, value: string): string {
  return `${events} DESC, ${value} ASC`;
}

/**
 * The breakdown values ranked as {@link topBreakdownValuesSql} ranks them (the first `limit`, plus one to tell that
 * more exist), each with its points of the series over the query's range, as (bucket, value) pairs: one read instead
 * of two, for a query whose one series counts exactly the events its values rank by (no distinct-count math).
 */
export function rankedPointsSql(query: InsightQuery, series: Series, ctx: SqlContext, limit: number, aggregate: boolean): BuiltSql {
  const p = new ChParams();
  const scope = sliceScope(query, series, query.range, null, ctx, p, false);
  const keys = pointBucket(query, p, aggregate);
  // Pairs, not two arrays: groupArray leaves NULLs out (a whole-range bucket, a sum over no number).
  return p.sql(`SELECT breakdown_value, groupArray((${keys.text}, value)) AS points FROM (
      SELECT ${breakdownValueSql(query, ctx, p)} AS breakdown_value, ${keys.bucket} AS bucket_start, ${pointValueSql(series, p)} AS value, count() AS events
      FROM ${scope.from} WHERE ${scope.where} GROUP BY breakdown_value, bucket_start)
    GROUP BY breakdown_value ORDER BY ${rankOrderSql('sum(events)', 'breakdown_value')} LIMIT ${p.add(limit + 1, 'UInt64')}`);
}

/**
 * The bucket a point is keyed by: the start of the one holding `time` (NULL for one point over the whole range), and
 * that start (`bucket_start`) written as text.
 */
function pointBucket(query: InsightQuery, p: ChParams, aggregate: boolean, time = 'e.timestamp') {
  return {
    bucket: aggregate ? 'CAST(NULL AS Nullable(DateTime))' : bucketSql(query.interval, query.weekStartDay, p.add(query.timezone, 'String'), time),
    // Buckets are grouped as times and written as text once per point, not once per event.
    text: aggregate ? 'CAST(NULL AS Nullable(String))' : bucketTextSql('bucket_start'),
  };
}

/** One series' points: per bucket (or once for the whole range when `aggregate`), per breakdown value. */
export function trendPointsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, aggregate: boolean): BuiltSql {
  const p = new ChParams();
  const distinct = distinctTargetSql(query, series, ctx, p);
  const scope = sliceScope(query, series, range, slice, ctx, p, distinct !== null);
  const keys = pointBucket(query, p, aggregate);
  const value = distinct === null ? pointValueSql(series, p) : `toFloat64(uniqExact(${distinct}))`;
  const where = distinct === null ? scope.where : `${scope.where} AND ${distinct} IS NOT NULL`;
  return p.sql(`SELECT breakdown_value, ${keys.text} AS bucket, value FROM (
    SELECT ${sliceBreakdownSql(query, slice, ctx, p)} AS breakdown_value, ${keys.bucket} AS bucket_start, ${value} AS value FROM ${scope.from} WHERE ${where}
    GROUP BY breakdown_value, bucket_start)`);
}

/** A count-per-actor math's points: each actor's events per point, then the math over those counts. */
export function countPerActorPointsSql(
  query: InsightQuery, series: Series & { math: CountPerActorMath }, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, aggregate: boolean,
): BuiltSql {
  const p = new ChParams();
  const scope = sliceScope(query, series, range, slice, ctx, p, true);
  const actor = seriesActorSql(query, series, ctx, p);
  const keys = pointBucket(query, p, aggregate);
  return p.sql(`SELECT breakdown_value, ${keys.text} AS bucket, toFloat64(${countAggregateSql(series.math, 'events')}) AS value FROM (
      SELECT ${sliceBreakdownSql(query, slice, ctx, p)} AS breakdown_value, ${keys.bucket} AS bucket_start, ${actor} AS actor, count() AS events FROM ${scope.from}
       WHERE ${scope.where} AND ${actor} IS NOT NULL GROUP BY breakdown_value, bucket_start, actor)
    GROUP BY breakdown_value, bucket_start`);
}

/**
 * The actors a first-time math counts in `range`, one row each: `actor_key`, `first_at` (the event that counts them)
 * and its `breakdown_value`. Every event of the series up to the range's end is read, so an actor whose first event
 * came before the range is not counted again. `having` adds per-actor conditions over the events (`countIf` …).
 */
export function firstTimeActorsSql(
  query: InsightQuery, series: Series & { math: FirstTimeMath }, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, p: ChParams, having: string[] = [],
): string {
  const actor = seriesActorSql(query, series, ctx, p);
  const matching = [...queryFiltersWhere(query, ctx, p), ...entityWhere({ event: null, properties: series.properties }, ctx, p), ...sliceWhere(query, slice, ctx, p)];
  const meets = matching.length ? matching.join(' AND ') : '1';
  const counted = `e.timestamp >= ${instantSql(range.from, p)} AND ${meets}`;
  const first = series.math === 'first_time_for_user' ? 'min(e.timestamp)' : `minIf(e.timestamp, ${meets})`;
  const where = [`e.team_id = ${p.add(ctx.projectId, 'Int64')}`, ...entityWhere({ event: series.event, action: series.action, properties: null }, ctx, p), `e.timestamp <= ${instantSql(range.to, p)}`, `${actor} IS NOT NULL`];
  return `SELECT ${actor} AS actor_key, minIf(e.timestamp, ${counted}) AS first_at, argMinIf(${breakdownValueSql(query, ctx, p)}, e.timestamp, ${counted}) AS breakdown_value
    FROM ${sliceFrom(query, series, slice, ctx, p, true)} WHERE ${where.join(' AND ')}
    GROUP BY actor_key HAVING ${[`countIf(${counted}) > 0`, `${first} = first_at`, ...having].join(' AND ')}`;
}

/** A first-time math's points: its actors, each in the bucket of the event that counts them. */
export function firstTimePointsSql(
  query: InsightQuery, series: Series & { math: FirstTimeMath }, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, aggregate: boolean,
): BuiltSql {
  const p = new ChParams();
  const keys = pointBucket(query, p, aggregate, 'first_at');
  const breakdown = slice?.kind === 'values' ? 'breakdown_value' : 'CAST(NULL AS Nullable(String))';
  return p.sql(`SELECT ${breakdown} AS breakdown_value, ${keys.text} AS bucket, toFloat64(count()) AS value FROM (
      SELECT breakdown_value, ${keys.bucket} AS bucket_start FROM (${firstTimeActorsSql(query, series, range, slice, ctx, p)}))
    GROUP BY breakdown_value, bucket_start`);
}

/**
 * Cumulative unique actors: each actor counts once, in the bucket of their first event in the range,
 * so the running sum of these points is the number of distinct actors seen so far.
 */
export function firstSeenPointsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const scope = sliceScope(query, series, range, slice, ctx, p, true);
  const actor = seriesActorSql(query, series, ctx, p);
  const breakdown = sliceBreakdownSql(query, slice, ctx, p);
  const bucket = bucketSql(query.interval, query.weekStartDay, p.add(query.timezone, 'String'));
  return p.sql(`SELECT breakdown_value, ${bucketTextSql('first_bucket')} AS bucket, toFloat64(count()) AS value FROM (
      SELECT ${breakdown} AS breakdown_value, ${actor} AS actor, min(${bucket}) AS first_bucket FROM ${scope.from}
       WHERE ${scope.where} AND ${actor} IS NOT NULL GROUP BY breakdown_value, actor) GROUP BY breakdown_value, first_bucket`);
}

/** A data point of weekly/monthly active users: the bucket it labels and the last day its window covers (its own day). */
export interface ActiveWindow {
  bucket: string;
  lastDay: string;
}

/**
 * Weekly (7-day) or monthly (30-day) active actors: for each point, the distinct actors with an event on
 * one of the `days` days ending on its window's last day. Reads each (actor, day) once.
 */
export function activeActorsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, windows: ActiveWindow[], days: number, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const widened = { ...range, from: range.from.minus({ days: days - 1 }).startOf('day') };
  const scope = sliceScope(query, series, widened, slice, ctx, p, true);
  const actor = actorSql(query, ctx, p);
  const breakdown = sliceBreakdownSql(query, slice, ctx, p);
  const zone = p.add(query.timezone, 'String');
  const buckets = p.add(windows.map((w) => w.bucket), 'Array(String)');
  const lastDays = p.add(windows.map((w) => w.lastDay.slice(0, 10)), 'Array(String)');
  const text = `SELECT breakdown_value, w.1 AS bucket, toFloat64(uniqExact(actor)) AS value FROM (
      SELECT DISTINCT ${breakdown} AS breakdown_value, toString(${actor}) AS actor, toDate(toTimeZone(e.timestamp, ${zone})) AS day FROM ${scope.from}
       WHERE ${scope.where} AND ${actor} IS NOT NULL) AS active
    ARRAY JOIN arrayZip(${buckets}, arrayMap((d) -> toDate(d), ${lastDays})) AS w
    WHERE active.day > w.2 - ${p.add(days, 'Int64')} AND active.day <= w.2
    GROUP BY breakdown_value, bucket`;
  return p.sql(text);
}
