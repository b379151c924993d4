import { SqlParams } from '../../../database/sql-params';
import type { InsightQuery, Interval } from '../model/insight-query';
import { actorSql, bucketSql, BuiltSql, entityWhere, filtersWhere, joinsSql, localTimestamp, personPropertiesNeeded, SqlContext, usesPersonActor } from './event-scope.sql';
import { breakdownValueSql } from './trends.sql';

/**
 * Retention as SQL. `target`: each actor's cohorts (every period with a target event for recurring
 * retention; the period of their first target event of all time for first-time retention, kept when it
 * falls in the range), with the breakdown value of that event. `returned`: each actor's periods with a
 * returning event. Periods are numbered from cohort 0 in the project's zone, so an actor retained k
 * periods after cohort c returned in period c + k.
 */

/** Periods from `from` (a local wall time) to `period` (a local bucket start), as an integer. */
function periodIndexSql(interval: Interval, from: string, period: string): string {
  if (interval === 'month') return `((extract(year FROM ${period}) - extract(year FROM ${from})) * 12 + extract(month FROM ${period}) - extract(month FROM ${from}))::int`;
  const seconds = { hour: 3600, day: 86_400, week: 604_800 }[interval];
  return `round(extract(epoch FROM ${period} - ${from}) / ${seconds})::int`;
}

/** The target and returned CTEs, shared by the table and its persons. */
function retentionCtes(query: InsightQuery, ctx: SqlContext, p: SqlParams): string {
  const options = query.retention!;
  const personProperties = personPropertiesNeeded(query, ctx, [options.target.properties, options.returning.properties]);
  const joins = joinsSql({ actor: usesPersonActor(query) || personProperties, personProperties });
  const actor = actorSql(query, ctx, p);
  const zone = p.add(query.timezone);
  const period = bucketSql(query.interval, query.weekStartDay, zone);
  const index = periodIndexSql(query.interval, localTimestamp(query.range.from.toFormat("yyyy-MM-dd'T'HH:mm:ss"), p), period);
  const common = [...filtersWhere(query, ctx, p), `${actor} IS NOT NULL`];
  const from = `e.timestamp >= ${p.add(query.range.from.toISO())}::timestamptz`;
  const to = `e.timestamp <= ${p.add(query.range.to.toISO())}::timestamptz`;
  const breakdown = query.breakdown ? breakdownValueSql(query, ctx, p) : 'NULL::text';
  const targetWhere = [...common, ...entityWhere(options.target.event, options.target.properties, ctx, p), to];
  // First-time retention reads the target event of all time: an actor's cohort is their first one ever.
  const target =
    options.type === 'first_time'
      ? `SELECT actor, cohort, breakdown_value FROM (SELECT DISTINCT ON (${actor}) ${actor} AS actor, ${index} AS cohort, ${breakdown} AS breakdown_value
           FROM event e ${joins} WHERE ${targetWhere.join(' AND ')} ORDER BY ${actor}, e.timestamp) firsts WHERE cohort >= 0`
      : `SELECT DISTINCT ${actor} AS actor, ${index} AS cohort, ${breakdown} AS breakdown_value FROM event e ${joins} WHERE ${[...targetWhere, from].join(' AND ')}`;
  const returning = `SELECT DISTINCT ${actor} AS actor, ${index} AS period FROM event e ${joins}
    WHERE ${[...common, ...entityWhere(options.returning.event, options.returning.properties, ctx, p), from, to].join(' AND ')}`;
  return `WITH target AS (${target}), returned AS (${returning})`;
}

/**
 * Rows of `(line, interval, value)`: the distinct actors of a line (a cohort index, or a breakdown value)
 * retained `interval` periods after their cohort; interval 0 is the line's size.
 */
export function retentionCountsSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  const p = new SqlParams();
  const line = query.breakdown ? 't.breakdown_value' : 't.cohort::text';
  const text = `${retentionCtes(query, ctx, p)}
    SELECT ${line} AS line, 0 AS interval, count(DISTINCT t.actor)::float8 AS value FROM target t GROUP BY 1
    UNION ALL
    SELECT ${line} AS line, r.period - t.cohort AS interval, count(DISTINCT t.actor)::float8 AS value
      FROM target t JOIN returned r ON r.actor = t.actor AND r.period > t.cohort GROUP BY 1, 2`;
  return { text, values: p.values };
}

/** The actors of one cohort (or breakdown line), each with the intervals they came back in. */
export function retentionActorsSql(query: InsightQuery, selection: { cohort?: number; breakdownValue?: string }, ctx: SqlContext): BuiltSql {
  const p = new SqlParams();
  const ctes = retentionCtes(query, ctx, p);
  const where = selection.breakdownValue !== undefined ? `t.breakdown_value = ${p.add(selection.breakdownValue)}::text` : `t.cohort = ${p.add(selection.cohort ?? 0)}`;
  const text = `${ctes}
    SELECT t.actor::text AS actor, coalesce(array_agg(DISTINCT r.period - t.cohort) FILTER (WHERE r.actor IS NOT NULL), '{}') AS intervals
      FROM target t LEFT JOIN returned r ON r.actor = t.actor AND r.period > t.cohort WHERE ${where} GROUP BY t.actor`;
  return { text, values: p.values };
}
