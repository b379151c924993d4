import { SqlParams } from '../../../database/sql-params';
import { DateRange, InsightQuery, PERCENTILES, Series } from '../model/insight-query';
import {
  actorSql, breakdownPropertySql, bucketSql, bucketTextSql, BuiltSql, cohortMemberSql, groupKeySql, joinsSql,
  personPropertiesNeeded, seriesWhere, SqlContext, usesPersonActor,
} from './event-scope.sql';

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

const NUMERIC_TEXT = String.raw`'^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,2})?\s*$'`;

/** A numeric event property as float8; anything else (text, too large, absent) is NULL and ignored. */
export function numericPropertySql(key: string, p: SqlParams): string {
  const k = `${p.add(key)}::text`;
  return `(CASE WHEN jsonb_typeof(e.properties -> ${k}) = 'number' AND abs((e.properties ->> ${k})::numeric) < 1e300 THEN (e.properties ->> ${k})::float8
    WHEN jsonb_typeof(e.properties -> ${k}) = 'string' AND length(e.properties ->> ${k}) < 100 AND (e.properties ->> ${k}) ~ ${NUMERIC_TEXT} THEN (e.properties ->> ${k})::float8 END)`;
}

/** What the distinct-count maths count: persons (or groups), a group type's keys, sessions; null for others. */
export function distinctTargetSql(query: InsightQuery, series: Series, ctx: SqlContext, p: SqlParams): string | null {
  switch (series.math) {
    case 'dau':
    case 'weekly_active':
    case 'monthly_active':
      return actorSql(query, ctx, p);
    case 'unique_group':
      return groupKeySql(series.mathGroupTypeIndex ?? 0, ctx, p);
    case 'unique_session':
      return `nullif(e.properties ->> '$session_id', '')`;
    default:
      return null;
  }
}

/** What one data point computes over its events, for the maths that are not distinct counts. */
export function pointValueSql(series: Series, p: SqlParams): string {
  return series.math === 'total' ? 'count(*)::float8' : propertyAggregateSql(series, p);
}

/** sum/avg/min/max or an exact percentile of a numeric event property. */
export function propertyAggregateSql(series: Series, p: SqlParams): string {
  const value = numericPropertySql(series.mathProperty ?? '', p);
  if (series.math in PERCENTILES) return `percentile_cont(${PERCENTILES[series.math]}) WITHIN GROUP (ORDER BY ${value})`;
  return `${series.math}(${value})::float8`;
}

/** The breakdown value of an event: one property's text, or a JSON list of several. */
export function breakdownValueSql(query: InsightQuery, ctx: SqlContext, p: SqlParams): string {
  if (query.breakdown?.kind !== 'property') return 'NULL::text';
  const parts = query.breakdown.properties.map((b) => breakdownPropertySql(b.key, b.type, b.groupTypeIndex, ctx, p));
  return parts.length === 1 ? parts[0] : `json_build_array(${parts.join(', ')})::text`;
}

/** FROM and WHERE of one series' events in a range, restricted to a breakdown slice. */
export function sliceScope(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, p: SqlParams, actor: boolean) {
  const where = seriesWhere(query, series, range, ctx, p);
  if (slice?.kind === 'values') where.push(`${breakdownValueSql(query, ctx, p)} = ANY(${p.add(slice.values)}::text[])`);
  if (slice?.kind === 'point' && query.breakdown?.kind === 'property') {
    query.breakdown.properties.forEach((b, i) => where.push(`${breakdownPropertySql(b.key, b.type, b.groupTypeIndex, ctx, p)} = ${p.add(slice.values[i] ?? '')}::text`));
  }
  if (slice?.kind === 'cohort' && slice.cohort !== 'all') {
    where.push(cohortMemberSql(slice.cohort, ctx, p));
  }
  const personProperties = personPropertiesNeeded(query, ctx, [series.properties]);
  const joins = joinsSql({ actor: (actor && usesPersonActor(query)) || personProperties, personProperties });
  return { from: `event e ${joins}`, where: where.join(' AND ') };
}

/** The breakdown values with the most events over every series, one page of them (plus one to tell `next`). */
export function topBreakdownValuesSql(query: InsightQuery, ctx: SqlContext, limit: number, offset: number): BuiltSql {
  const p = new SqlParams();
  const scopes = query.series.map((s) => `(${seriesWhere(query, s, query.range, ctx, p).join(' AND ')})`);
  const personProperties = personPropertiesNeeded(query, ctx, query.series.map((s) => s.properties));
  const joins = joinsSql({ actor: personProperties, personProperties });
  const value = breakdownValueSql(query, ctx, p);
  // Ties go by byte order, so the page is the same whatever the database's collation.
  const text = `SELECT value, events FROM (SELECT ${value} AS value, count(*) AS events FROM event e ${joins} WHERE (${scopes.join(' OR ')}) GROUP BY 1) v
    ORDER BY events DESC, value COLLATE "C" LIMIT ${p.add(limit + 1)} OFFSET ${p.add(offset)}`;
  return { text, values: p.values };
}

/** One series' points: per bucket (or once for the whole range when `aggregate`), per breakdown value. */
/**
 * Buckets are grouped as timestamps and formatted once per point. Distinct counts deduplicate
 * (bucket, target) pairs first and count them after: a hash aggregate PostgreSQL can run in parallel,
 * where `count(DISTINCT …)` sorts every row in one process.
 */
export function trendPointsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext, aggregate: boolean): BuiltSql {
  const p = new SqlParams();
  const distinct = distinctTargetSql(query, series, ctx, p);
  const scope = sliceScope(query, series, range, slice, ctx, p, distinct !== null);
  const breakdown = slice?.kind === 'values' ? breakdownValueSql(query, ctx, p) : 'NULL::text';
  const bucket = aggregate ? 'NULL::timestamp' : bucketSql(query.interval, query.weekStartDay, p.add(query.timezone));
  const inner = distinct === null
    ? `SELECT ${breakdown} AS breakdown_value, ${bucket} AS bucket, ${pointValueSql(series, p)} AS value FROM ${scope.from} WHERE ${scope.where} GROUP BY 1, 2`
    : `SELECT breakdown_value, bucket, count(*)::float8 AS value FROM (
        SELECT DISTINCT ${breakdown} AS breakdown_value, ${bucket} AS bucket, ${distinct} AS target FROM ${scope.from}
         WHERE ${scope.where} AND ${distinct} IS NOT NULL) targets GROUP BY 1, 2`;
  return { text: `SELECT breakdown_value, ${bucketTextSql('bucket')} AS bucket, value FROM (${inner}) points`, values: p.values };
}

/**
 * Cumulative unique actors: each actor counts once, in the bucket of their first event in the range,
 * so the running sum of these points is the number of distinct actors seen so far.
 */
export function firstSeenPointsSql(query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, ctx: SqlContext): BuiltSql {
  const p = new SqlParams();
  const scope = sliceScope(query, series, range, slice, ctx, p, true);
  const actor = series.math === 'unique_group' ? groupKeySql(series.mathGroupTypeIndex ?? 0, ctx, p) : actorSql(query, ctx, p);
  const breakdown = slice?.kind === 'values' ? breakdownValueSql(query, ctx, p) : 'NULL::text';
  const bucket = bucketSql(query.interval, query.weekStartDay, p.add(query.timezone));
  const text = `SELECT breakdown_value, ${bucketTextSql('first_bucket')} AS bucket, value FROM (
      SELECT breakdown_value, first_bucket, count(*)::float8 AS value FROM (
        SELECT ${breakdown} AS breakdown_value, ${actor} AS actor, min(${bucket}) AS first_bucket FROM ${scope.from}
         WHERE ${scope.where} AND ${actor} IS NOT NULL GROUP BY 1, 2) first_seen GROUP BY 1, 2) points`;
  return { text, values: p.values };
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
  const p = new SqlParams();
  const widened = { ...range, from: range.from.minus({ days: days - 1 }).startOf('day') };
  const scope = sliceScope(query, series, widened, slice, ctx, p, true);
  const actor = actorSql(query, ctx, p);
  const breakdown = slice?.kind === 'values' ? breakdownValueSql(query, ctx, p) : 'NULL::text';
  const day = `date_trunc('day', e.timestamp AT TIME ZONE ${p.add(query.timezone)})`;
  const buckets = p.add(windows.map((w) => w.bucket));
  const lastDays = p.add(windows.map((w) => w.lastDay));
  const text = `WITH active AS (
      SELECT DISTINCT ${breakdown} AS breakdown_value, ${actor} AS actor, ${day} AS day FROM ${scope.from}
       WHERE ${scope.where} AND ${actor} IS NOT NULL)
    SELECT a.breakdown_value, w.bucket, count(DISTINCT a.actor)::float8 AS value
      FROM unnest(${buckets}::text[], ${lastDays}::timestamp[]) AS w(bucket, last_day)
      JOIN active a ON a.day > w.last_day - ${p.add(days)} * interval '1 day' AND a.day <= w.last_day
     GROUP BY 1, 2`;
  return { text, values: p.values };
}
