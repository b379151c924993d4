import { ChParams } from '../engine/ch-sql';
import type { InsightQuery, Interval } from '../model/insight-query';
import { actorSql, bucketSql, BuiltSql, entityWhere, eventsFrom, filtersWhere, instantSql, joinNeeds, localTimestamp, SqlContext } from './event-scope.sql';
import { breakdownValueSql } from './trends.sql';

/**
 * Retention as SQL. `target`: each actor's cohorts (every period with a target event for recurring
 * retention; the period of their first target event of all time for first-time retention, kept when it
 * falls in the range), with the breakdown value of that event. `returned`: each actor's periods with a
 * returning event. Periods are numbered from cohort 0 in the project's zone, so an actor retained k
 * periods after cohort c returned in period c + k.
 */

/** Periods from `from` (a local bucket start) to `period` (a local bucket start), as an integer. */
function periodIndexSql(interval: Interval, from: string, period: string): string {
  if (interval === 'month') return `toInt64((toYear(${period}) - toYear(${from})) * 12 + toMonth(${period}) - toMonth(${from}))`;
  const seconds = { hour: 3600, day: 86_400, week: 604_800 }[interval];
  // Wall-clock difference (a DST day still counts as one day).
  return `toInt64(round((toUnixTimestamp(toDateTime(formatDateTime(${period}, '%Y-%m-%d %H:%i:%S'), 'UTC')) - toUnixTimestamp(toDateTime(formatDateTime(${from}, '%Y-%m-%d %H:%i:%S'), 'UTC'))) / ${seconds}))`;
}

/** The target and returned CTEs, shared by the table and its persons. */
function retentionCtes(query: InsightQuery, ctx: SqlContext, p: ChParams): string {
  const options = query.retention!;
  const from = eventsFrom(joinNeeds(query, ctx, [options.target.properties, options.returning.properties], true), ctx, p);
  const actor = actorSql(query, ctx, p);
  const zone = p.add(query.timezone, 'String');
  const period = bucketSql(query.interval, query.weekStartDay, zone);
  const index = periodIndexSql(query.interval, localTimestamp(query.range.from.toFormat("yyyy-MM-dd'T'HH:mm:ss"), zone, p), period);
  const common = [...filtersWhere(query, ctx, p), `${actor} IS NOT NULL`];
  const after = `e.timestamp >= ${instantSql(query.range.from, p)}`;
  const before = `e.timestamp <= ${instantSql(query.range.to, p)}`;
  const breakdown = query.breakdown ? breakdownValueSql(query, ctx, p) : 'CAST(NULL AS Nullable(String))';
  const targetWhere = [...common, ...entityWhere(options.target.event, options.target.properties, ctx, p), before];
  // First-time retention reads the target event of all time: an actor's cohort is their first one ever.
  const target =
    options.type === 'first_time'
      ? `SELECT actor, cohort, breakdown_value FROM (
           SELECT toString(${actor}) AS actor, argMin(tuple(${index}, ${breakdown}), (e.timestamp, e.uuid)) AS first
             FROM ${from} WHERE ${targetWhere.join(' AND ')} GROUP BY actor)
         ARRAY JOIN [first.1] AS cohort, [first.2] AS breakdown_value WHERE cohort >= 0`
      : `SELECT DISTINCT toString(${actor}) AS actor, ${index} AS cohort, ${breakdown} AS breakdown_value FROM ${from} WHERE ${[...targetWhere, after].join(' AND ')}`;
  const returning = `SELECT DISTINCT toString(${actor}) AS actor, ${index} AS period FROM ${from}
    WHERE ${[...common, ...entityWhere(options.returning.event, options.returning.properties, ctx, p), after, before].join(' AND ')}`;
  return `WITH target AS (${target}), returned AS (${returning})`;
}

/**
 * Rows of `(line, interval, value)`: the distinct actors of a line (a cohort index, or a breakdown value)
 * retained `interval` periods after their cohort; interval 0 is the line's size.
 */
export function retentionCountsSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const line = query.breakdown ? 't.breakdown_value' : 'toString(t.cohort)';
  return p.sql(`${retentionCtes(query, ctx, p)}
    SELECT ${line} AS line, 0 AS interval, toFloat64(uniqExact(t.actor)) AS value FROM target AS t GROUP BY line
    UNION ALL
    SELECT ${line} AS line, r.period - t.cohort AS interval, toFloat64(uniqExact(t.actor)) AS value
      FROM target AS t INNER JOIN returned AS r ON r.actor = t.actor WHERE r.period > t.cohort GROUP BY line, interval`);
}

/** The actors of one cohort (or breakdown line), each with the intervals they came back in. */
export function retentionActorsSql(query: InsightQuery, selection: { cohort?: number; breakdownValue?: string }, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const ctes = retentionCtes(query, ctx, p);
  const where = selection.breakdownValue !== undefined ? `t.breakdown_value = ${p.add(selection.breakdownValue, 'String')}` : `t.cohort = ${p.add(selection.cohort ?? 0, 'Int64')}`;
  return p.sql(`${ctes}
    SELECT t.actor AS actor, arraySort(arrayFilter((x) -> x > 0, groupUniqArray(if(r.actor = '', 0, r.period - t.cohort)))) AS intervals
      FROM target AS t LEFT JOIN returned AS r ON r.actor = t.actor AND r.period > t.cohort WHERE ${where} GROUP BY t.actor`);
}
