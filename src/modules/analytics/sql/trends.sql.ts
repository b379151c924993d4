import { ChParams } from '../engine/ch-sql';
import { DateRange, InsightQuery, PERCENTILES, Series } from '../model/insight-query';
import {
  actorSql, breakdownPropertySql, bucketSql, bucketTextSql, BuiltSql, cohortMemberSql, eventsFrom, groupKeySql, joinNeeds,
  propertyTextSql, seriesWhere, SqlContext,
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
  | null;

/** Decimal text a number is read from (as JavaScript's Number() would, bounded so the cast never fails). */
const NUMERIC_TEXT = String.raw`^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,2})?\s*$`;

/** A numeric event property as Float64; anything else (text, too large, absent) is NULL and ignored. */
export function numericPropertySql(key: string, p: ChParams): string {
  const k = p.add(key, 'String');
  const hot = HOT_EVENT_PROPERTIES.get(key);
  const text = hot ? `e.${hot}` : propertyTextSql('e.properties', k);
  const type = `JSONType(e.properties, ${k})`;
  return `if((${type} IN ('Int64', 'UInt64', 'Double') OR (${type} = 'String' AND length(${text}) < 100 AND match(${text}, ${p.add(NUMERIC_TEXT, 'String')})))
      AND abs(toFloat64OrZero(trimBoth(${text}))) < 1e300, toFloat64OrNull(trimBoth(${text})), NULL)`;
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

/** The breakdown value of an event: one property's text, or a JSON list of several. */
export function breakdownValueSql(query: InsightQuery, ctx: SqlContext, p: ChParams): string {
  if (query.breakdown?.kind !== 'property') return 'CAST(NULL AS Nullable(String))';
  const parts = query.breakdown.properties.map((b, i) => breakdownPropertySql(b.key, b.type, b.groupTypeIndex, i, p));
  return parts.length === 1 ? parts[0] : `toJSONString([${parts.join(', ')}])`;
}

/** FROM and WHERE of one series' events in a range, restricted to a breakdown slice. */
export function sliceScope(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, p: ChParams, actor: boolean) {
  const where = seriesWhere(query, series, range, ctx, p);
  if (slice?.kind === 'values') where.push(`${breakdownValueSql(query, ctx, p)} IN ${p.add(slice.values, 'Array(String)')}`);
  if (slice?.kind === 'point' && query.breakdown?.kind === 'property') {
    query.breakdown.properties.forEach((b, i) => where.push(`${breakdownPropertySql(b.key, b.type, b.groupTypeIndex, i, p)} = ${p.add(slice.values[i] ?? '', 'String')}`));
  }
  if (slice?.kind === 'cohort' && slice.cohort !== 'all') where.push(cohortMemberSql(slice.cohort, ctx, p));
  const needs = joinNeeds(query, ctx, [series.properties], actor || slice?.kind === 'cohort');
  return { from: eventsFrom(needs, ctx, p), where: where.join(' AND ') };
}

/** The breakdown values with the most events over every series, one page of them (plus one to tell `next`). */
export function topBreakdownValuesSql(query: InsightQuery, ctx: SqlContext, limit: number, offset: number): BuiltSql {
  const p = new ChParams();
  const scopes = query.series.map((s) => `(${seriesWhere(query, s, query.range, ctx, p).join(' AND ')})`);
  const from = eventsFrom(joinNeeds(query, ctx, query.series.map((s) => s.properties), false), ctx, p);
  const value = breakdownValueSql(query, ctx, p);
  // Ties go by byte order, as in every deployment.
  return p.sql(`SELECT value, toString(n) AS events FROM (SELECT ${value} AS value, count() AS n FROM ${from} WHERE (${scopes.join(' OR ')}) GROUP BY value)
    ORDER BY n DESC, value ASC LIMIT ${p.add(limit + 1, 'UInt64')} OFFSET ${p.add(offset, 'UInt64')}`);
}

/** One series' points: per bucket (or once for the whole range when `aggregate`), per breakdown value. */
export function trendPointsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, aggregate: boolean): BuiltSql {
  const p = new ChParams();
  const distinct = distinctTargetSql(query, series, ctx, p);
  const scope = sliceScope(query, series, range, slice, ctx, p, distinct !== null);
  const breakdown = slice?.kind === 'values' ? breakdownValueSql(query, ctx, p) : 'CAST(NULL AS Nullable(String))';
  const bucket = aggregate ? 'CAST(NULL AS Nullable(DateTime))' : bucketSql(query.interval, query.weekStartDay, p.add(query.timezone, 'String'));
  const value = distinct === null ? pointValueSql(series, p) : `toFloat64(uniqExact(${distinct}))`;
  const where = distinct === null ? scope.where : `${scope.where} AND ${distinct} IS NOT NULL`;
  // Buckets are grouped as times and written as text once per point, not once per event.
  return p.sql(`SELECT breakdown_value, ${aggregate ? 'CAST(NULL AS Nullable(String))' : bucketTextSql('bucket_start')} AS bucket, value FROM (
    SELECT ${breakdown} AS breakdown_value, ${bucket} AS bucket_start, ${value} AS value FROM ${scope.from} WHERE ${where}
    GROUP BY breakdown_value, bucket_start)`);
}

/**
 * Cumulative unique actors: each actor counts once, in the bucket of their first event in the range,
 * so the running sum of these points is the number of distinct actors seen so far.
 */
export function firstSeenPointsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const scope = sliceScope(query, series, range, slice, ctx, p, true);
  const actor = series.math === 'unique_group' ? groupKeySql(series.mathGroupTypeIndex ?? 0, ctx, p) : actorSql(query, ctx, p);
  const breakdown = slice?.kind === 'values' ? breakdownValueSql(query, ctx, p) : 'CAST(NULL AS Nullable(String))';
  const bucket = bucketSql(query.interval, query.weekStartDay, p.add(query.timezone, 'String'));
  return p.sql(`SELECT breakdown_value, ${bucketTextSql('first_bucket')} AS bucket, toFloat64(count()) AS value FROM (
      SELECT ${breakdown} AS breakdown_value, ${actor} AS actor, min(${bucket}) AS first_bucket FROM ${scope.from}
       WHERE ${scope.where} AND ${actor} IS NOT NULL GROUP BY breakdown_value, actor) GROUP BY breakdown_value, first_bucket`);
}

/** A data point of weekly/monthly active users: the bucket it labels and the last day its window covers. */
export interface ActiveWindow {
  bucket: string;
  lastDay: string;
}

/**
 * Weekly (7-day) or monthly (30-day) active actors: for each point, the distinct actors with an event on
 * one of the `days` days ending on the point's last day. Reads each (actor, day) once.
 */
export function activeActorsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, windows: ActiveWindow[], days: number, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const widened = { ...range, from: range.from.minus({ days: days - 1 }).startOf('day') };
  const scope = sliceScope(query, series, widened, slice, ctx, p, true);
  const actor = actorSql(query, ctx, p);
  const breakdown = slice?.kind === 'values' ? breakdownValueSql(query, ctx, p) : 'CAST(NULL AS Nullable(String))';
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
