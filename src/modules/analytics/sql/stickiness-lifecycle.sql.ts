import type { DateTime } from 'luxon';
import { ChParams } from '../engine/ch-sql';
import { intervalStart } from '../model/insight-dates';
import type { InsightQuery, LifecycleStatus, Series } from '../model/insight-query';
import { actorSql, bucketSql, bucketTextSql, BuiltSql, localTimestamp, personActorSql, SqlContext } from './event-scope.sql';
import { sliceScope } from './trends.sql';

/** How many intervals of the range each actor was active in (stickiness), one row per actor. */
function activeIntervalsSql(query: InsightQuery, series: Series, ctx: SqlContext, p: ChParams, extraWhere: string[] = []): string {
  const scope = sliceScope(query, series, query.range, null, ctx, p, true);
  const actor = actorSql(query, ctx, p);
  const bucket = bucketSql(query.interval, query.weekStartDay, p.add(query.timezone, 'String'));
  return `SELECT ${actor} AS actor_key, uniqExact(${bucket}) AS intervals FROM ${scope.from}
    WHERE ${[scope.where, `${actor} IS NOT NULL`, ...extraWhere].join(' AND ')} GROUP BY actor_key`;
}

/** Stickiness: how many actors were active in exactly k intervals, per k. */
export function stickinessCountsSql(query: InsightQuery, series: Series, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  return p.sql(`SELECT toString(intervals) AS intervals, toFloat64(count()) AS value FROM (${activeIntervalsSql(query, series, ctx, p)}) GROUP BY intervals`);
}

/** The actors active in exactly `days` intervals, one page in actor order. */
export function stickinessActorsSql(query: InsightQuery, series: Series, days: number, search: (p: ChParams) => string[], ctx: SqlContext, page: { limit: number; offset: number }): BuiltSql {
  const p = new ChParams();
  const inner = activeIntervalsSql(query, series, ctx, p, search(p));
  return p.sql(`SELECT toString(actor_key) AS actor, toFloat64(intervals) AS value FROM (${inner}) WHERE intervals = ${p.add(days, 'UInt64')}
    ORDER BY actor_key LIMIT ${p.add(page.limit, 'UInt64')} OFFSET ${p.add(page.offset, 'UInt64')}`);
}

const STEP: Readonly<Record<InsightQuery['interval'], string>> = { minute: 'INTERVAL 1 MINUTE', hour: 'INTERVAL 1 HOUR', day: 'INTERVAL 1 DAY', week: 'INTERVAL 1 WEEK', month: 'INTERVAL 1 MONTH' };

/**
 * Each active (person, period) with its lifecycle status, plus a `dormant` row for the period after each
 * active one that is followed by inactivity. "new" means the person was created in that period (their
 * first event's time), "returning" active the period before, "resurrecting" otherwise. Events are read
 * from one period before the range, so the first period's statuses know what came before. Each person's
 * periods are one sorted array, read once: a window over (person, period) rows, read twice for the two
 * kinds of rows, took twice the time of the same answer from arrays.
 */
function lifecycleStatusesSql(query: InsightQuery, series: Series, ctx: SqlContext, p: ChParams, extraWhere: string[]): string {
  const first = intervalStart(query.range.from, query.interval, query.weekStartDay);
  const widened = { ...query.range, from: first.minus({ [`${query.interval}s`]: 1 }) };
  const scope = sliceScope({ ...query, range: widened }, series, widened, null, ctx, p, true);
  const zone = p.add(query.timezone, 'String');
  const step = STEP[query.interval];
  const team = p.add(ctx.projectId, 'Int64');
  // Active periods count for persons that exist (the join finds them); dormant ones whatever became of the person.
  const active = `arrayMap((period, i) -> (period, multiIf(${bucketSql(query.interval, query.weekStartDay, zone, 'created_at')} = period, 'new',
      i > 1 AND periods[i - 1] = period - ${step}, 'returning', 'resurrecting')), periods, arrayEnumerate(periods))`;
  const dormant = `arrayMap((period) -> (period + ${step}, 'dormant'),
      arrayFilter((period, i) -> i = length(periods) OR periods[i + 1] != period + ${step}, periods, arrayEnumerate(periods)))`;
  return `WITH statuses AS (
      SELECT actor, row.1 AS period, row.2 AS status FROM (
        SELECT a.actor AS actor, a.periods AS periods, c.id != 0 AS exists, c.created_at AS created_at FROM (
          SELECT assumeNotNull(${personActorSql(ctx)}) AS actor, arraySort(groupUniqArray(${bucketSql(query.interval, query.weekStartDay, zone)})) AS periods FROM ${scope.from}
           WHERE ${[scope.where, `${personActorSql(ctx)} IS NOT NULL`, ...extraWhere].join(' AND ')} GROUP BY actor) AS a
        LEFT JOIN (SELECT id, argMax(created_at, version) AS created_at FROM person WHERE team_id = ${team} GROUP BY id HAVING argMax(is_deleted, version) = 0) AS c
          ON c.id = a.actor)
      ARRAY JOIN arrayConcat(if(exists, ${active}, []), ${dormant}) AS row)`;
}

/** Lifecycle: persons per (status, period) inside the range; each person holds one status a period, so rows are counted as they are. */
export function lifecycleCountsSql(query: InsightQuery, series: Series, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const statuses = lifecycleStatusesSql(query, series, ctx, p, []);
  const zone = p.add(query.timezone, 'String');
  const first = localTimestamp(bucketStartKey(query.range.from, query), zone, p);
  const last = localTimestamp(bucketStartKey(query.range.to, query), zone, p);
  return p.sql(`${statuses}
    SELECT status, ${bucketTextSql('period')} AS bucket, toFloat64(count()) AS value FROM statuses
     WHERE period >= ${first} AND period <= ${last} GROUP BY status, period`);
}

/** The persons holding `status` in the period that starts at `target`, one page in person order. */
export function lifecycleActorsSql(
  query: InsightQuery, series: Series, status: LifecycleStatus, target: DateTime, search: (p: ChParams) => string[], ctx: SqlContext, page: { limit: number; offset: number },
): BuiltSql {
  const p = new ChParams();
  // Search narrows the persons whose periods are computed; their statuses stay what they are.
  const statuses = lifecycleStatusesSql(query, series, ctx, p, search(p));
  const period = localTimestamp(bucketStartKey(target, query), p.add(query.timezone, 'String'), p);
  return p.sql(`${statuses}
    SELECT DISTINCT toString(actor) AS actor, CAST(NULL AS Nullable(Float64)) AS value, actor AS person FROM statuses
     WHERE status = ${p.add(status, 'String')} AND period = ${period}
     ORDER BY person LIMIT ${p.add(page.limit, 'UInt64')} OFFSET ${p.add(page.offset, 'UInt64')}`);
}

function bucketStartKey(at: DateTime, query: InsightQuery): string {
  return intervalStart(at.setZone(query.timezone), query.interval, query.weekStartDay).toFormat("yyyy-MM-dd'T'HH:mm:ss");
}
