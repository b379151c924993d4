import type { DateTime } from 'luxon';
import { SqlParams } from '../../../database/sql-params';
import { intervalStart } from '../model/insight-dates';
import type { InsightQuery, LifecycleStatus, Series } from '../model/insight-query';
import { actorSql, bucketSql, bucketTextSql, BuiltSql, localTimestamp, SqlContext } from './event-scope.sql';
import { sliceScope } from './trends.sql';

/**
 * How many intervals of the range each actor was active in (stickiness), one row per actor: the
 * distinct (actor, interval) pairs first (a hash aggregate), then counted per actor, instead of a
 * `count(DISTINCT …)` that sorts every event.
 */
function activeIntervalsSql(query: InsightQuery, series: Series, ctx: SqlContext, p: SqlParams, extraWhere: string[] = []): string {
  const scope = sliceScope(query, series, query.range, null, ctx, p, true);
  const actor = actorSql(query, ctx, p);
  const bucket = bucketSql(query.interval, query.weekStartDay, p.add(query.timezone));
  return `SELECT actor, count(*) AS intervals FROM (SELECT ${actor} AS actor, ${bucket} AS bucket FROM ${scope.from}
    WHERE ${[scope.where, `${actor} IS NOT NULL`, ...extraWhere].join(' AND ')} GROUP BY 1, 2) active GROUP BY 1`;
}

/** Stickiness: how many actors were active in exactly k intervals, per k. */
export function stickinessCountsSql(query: InsightQuery, series: Series, ctx: SqlContext): BuiltSql {
  const p = new SqlParams();
  const text = `SELECT intervals, count(*)::float8 AS value FROM (${activeIntervalsSql(query, series, ctx, p)}) per_actor GROUP BY 1`;
  return { text, values: p.values };
}

/** The actors active in exactly `days` intervals, one page in actor order. */
export function stickinessActorsSql(query: InsightQuery, series: Series, days: number, search: (p: SqlParams) => string[], ctx: SqlContext, page: { limit: number; offset: number }): BuiltSql {
  const p = new SqlParams();
  const inner = activeIntervalsSql(query, series, ctx, p, search(p));
  const text = `SELECT actor, intervals::float8 AS value FROM (${inner}) per_actor WHERE intervals = ${p.add(days)}
    ORDER BY actor LIMIT ${p.add(page.limit)} OFFSET ${p.add(page.offset)}`;
  return { text, values: p.values };
}

/**
 * Each active (person, period) with its lifecycle status, plus a `dormant` row for the period after each
 * active one that is followed by inactivity. "new" means the person was created in that period (their
 * first event's time), "returning" active the period before, "resurrecting" otherwise. Events are read
 * from one period before the range, so the first period's statuses know what came before.
 */
function lifecycleStatusesSql(query: InsightQuery, series: Series, ctx: SqlContext, p: SqlParams, extraWhere: string[]): string {
  const first = intervalStart(query.range.from, query.interval, query.weekStartDay);
  const widened = { ...query.range, from: first.minus({ [`${query.interval}s`]: 1 }) };
  const scope = sliceScope({ ...query, range: widened }, series, widened, null, ctx, p, true);
  const zone = p.add(query.timezone);
  const step = `interval '1 ${query.interval}'`;
  return `WITH periods AS (
      SELECT pd.person_id AS actor, ${bucketSql(query.interval, query.weekStartDay, zone)} AS period FROM ${scope.from}
       WHERE ${[scope.where, 'pd.person_id IS NOT NULL', ...extraWhere].join(' AND ')} GROUP BY 1, 2),
    marked AS (
      SELECT actor, period, lag(period) OVER w AS previous, lead(period) OVER w AS following FROM periods WINDOW w AS (PARTITION BY actor ORDER BY period)),
    statuses AS (
      SELECT m.actor, m.period, CASE WHEN ${bucketSql(query.interval, query.weekStartDay, zone, 'cp.created_at')} = m.period THEN 'new'
        WHEN m.previous = m.period - ${step} THEN 'returning' ELSE 'resurrecting' END AS status
        FROM marked m JOIN person cp ON cp.id = m.actor
      UNION ALL
      SELECT actor, period + ${step}, 'dormant' FROM marked WHERE following IS DISTINCT FROM period + ${step})`;
}

/** Lifecycle: persons per (status, period) inside the range; each person holds one status a period, so rows are counted as they are. */
export function lifecycleCountsSql(query: InsightQuery, series: Series, ctx: SqlContext): BuiltSql {
  const p = new SqlParams();
  const statuses = lifecycleStatusesSql(query, series, ctx, p, []);
  const first = localTimestamp(bucketStartKey(query.range.from, query), p);
  const last = localTimestamp(bucketStartKey(query.range.to, query), p);
  const text = `${statuses}
    SELECT status, ${bucketTextSql('period')} AS bucket, value FROM (
      SELECT status, period, count(*)::float8 AS value FROM statuses WHERE period >= ${first} AND period <= ${last} GROUP BY 1, 2) counts`;
  return { text, values: p.values };
}

/** The persons holding `status` in the period that starts at `target`, one page in person order. */
export function lifecycleActorsSql(
  query: InsightQuery, series: Series, status: LifecycleStatus, target: DateTime, search: (p: SqlParams) => string[], ctx: SqlContext, page: { limit: number; offset: number },
): BuiltSql {
  const p = new SqlParams();
  // Search narrows the persons whose periods are computed; their statuses stay what they are.
  const statuses = lifecycleStatusesSql(query, series, ctx, p, search(p));
  const period = localTimestamp(bucketStartKey(target, query), p);
  const text = `${statuses}
    SELECT DISTINCT actor, NULL::float8 AS value FROM statuses WHERE status = ${p.add(status)} AND period = ${period}
     ORDER BY actor LIMIT ${p.add(page.limit)} OFFSET ${p.add(page.offset)}`;
  return { text, values: p.values };
}

function bucketStartKey(at: DateTime, query: InsightQuery): string {
  return intervalStart(at.setZone(query.timezone), query.interval, query.weekStartDay).toFormat("yyyy-MM-dd'T'HH:mm:ss");
}
