import { ChParams } from '../engine/ch-sql';
import type { InsightQuery, Interval, RetentionActorsSelection } from '../model/insight-query';
import { actorSql, bucketKeySql, bucketOfKeySql, BuiltSql, entityFilters, entityWhere, eventsFrom, filtersWhere, instantSql, joinNeeds, localTimestamp, SqlContext } from './event-scope.sql';
import { breakdownValueSql } from './trends.sql';

/**
 * Retention as SQL, in one read of the events and no join: each actor's row holds their cohorts (every period
 * with a target event for recurring retention; the period of their first target event of all time for
 * first-time retention, kept when it falls in the range), each with the breakdown value of that event, and the
 * periods they returned in. Periods are numbered from cohort 0 in the project's zone, so an actor retained k
 * periods after cohort c returned in period c + k. (A join of cohorts to returns held both sides in memory at
 * once: past 1 GB for weekly retention over a million actors.)
 */

/** Periods from `from` (a local bucket start) to `period` (a local bucket start), as an integer. */
function periodIndexSql(interval: Interval, from: string, period: string): string {
  if (interval === 'month') return `toInt64((toYear(${period}) - toYear(${from})) * 12 + toMonth(${period}) - toMonth(${from}))`;
  const seconds = { minute: 60, hour: 3600, day: 86_400, week: 604_800 }[interval];
  // Wall-clock difference (a DST day still counts as one day): an instant plus its zone's offset then.
  const wall = (at: string) => `(toUnixTimestamp(${at}) + timeZoneOffset(${at}))`;
  return `toInt64(round((${wall(period)} - ${wall(from)}) / ${seconds}))`;
}

/**
 * The `target` CTE: one row per actor and cohort with `cohort`, `breakdown_value` and `periods` (every period
 * the actor returned in). Buckets are gathered as their smallest value (a Date, not a DateTime, and no breakdown
 * beside it when there is none) and numbered after the per-actor reduction, not once per event: weekly retention
 * at 10 M events took 2.5 s gathering (DateTime, NULL) pairs, 1.5 s this way.
 */
function retentionCte(query: InsightQuery, ctx: SqlContext, p: ChParams, onlyCohort: number | null = null): string {
  const options = query.retention!;
  const from = eventsFrom(joinNeeds(query, ctx, [...entityFilters(options.target), ...entityFilters(options.returning)], true), ctx, p);
  const nullableActor = actorSql(query, ctx, p);
  // Rows without an actor are filtered out (`common`), so the actor is read without its null map.
  const actor = `assumeNotNull(${nullableActor})`;
  const common = [...filtersWhere(query, ctx, p), `${nullableActor} IS NOT NULL`];
  const zone = p.add(query.timezone, 'String');
  const key = bucketKeySql(query.interval, query.weekStartDay, zone);
  const cohortZero = localTimestamp(query.range.from.toFormat("yyyy-MM-dd'T'HH:mm:ss"), zone, p);
  const index = (keyColumn: string) => periodIndexSql(query.interval, cohortZero, bucketOfKeySql(query.interval, keyColumn, zone));
  const after = `e.timestamp >= ${instantSql(query.range.from, p)}`;
  const before = `e.timestamp <= ${instantSql(query.range.to, p)}`;
  const isTarget = `(${['1', ...entityWhere(options.target, ctx, p)].join(' AND ')})`;
  const isReturn = `(${['1', ...entityWhere(options.returning, ctx, p), after].join(' AND ')})`;
  const breakdown = query.breakdown ? breakdownValueSql(query, ctx, p) : 'CAST(NULL AS Nullable(String))';
  const firstTime = options.type === 'first_time';
  // First-time retention reads the target event of all time: an actor's cohort is their first one ever, and
  // its breakdown value that of their first event (ties in time broken by uuid, so every read agrees).
  const cohorts = firstTime
    ? `[(minIf(${key}, ${isTarget}), ${query.breakdown ? `argMinIf(${breakdown}, (e.timestamp, e.uuid), ${isTarget})` : breakdown})]`
    : query.breakdown ? `groupUniqArrayIf((${key}, ${breakdown}), ${isTarget} AND ${after})`
    : `arrayMap((k) -> (k, ${breakdown}), groupUniqArrayIf(${key}, ${isTarget} AND ${after}))`;
  const where = [...common, before, firstTime ? `(${isTarget} OR ${isReturn})` : `${after} AND (${isTarget} OR ${isReturn})`];
  if (onlyCohort !== null) where.push(`${actor} IN (${cohortCandidatesSql(query, onlyCohort, { from, actor, where: [...common, isTarget] }, p)})`);
  return `WITH target AS (
    SELECT actor, ${index('c.1')} AS cohort, c.2 AS breakdown_value, arrayMap((b) -> ${index('b')}, returns) AS periods FROM (
      SELECT ${actor} AS actor, ${cohorts} AS cohorts, groupUniqArrayIf(${key}, ${isReturn}) AS returns
        FROM ${from} WHERE ${where.join(' AND ')} GROUP BY actor${firstTime ? ` HAVING countIf(${isTarget}) > 0` : ''})
    ARRAY JOIN cohorts AS c WHERE cohort >= 0)`;
}

/**
 * The actors with a target event around one cohort's period (a day either side, whatever the zone): every member of
 * the cohort is among them, so a persons page groups these actors' events instead of every actor's.
 */
function cohortCandidatesSql(query: InsightQuery, cohort: number, read: { from: string; actor: string; where: string[] }, p: ChParams): string {
  const unit = `${query.interval}s`;
  const start = query.range.from.plus({ [unit]: cohort }).minus({ days: 1 });
  const end = query.range.from.plus({ [unit]: cohort + 1 }).plus({ days: 1 });
  const where = [...read.where, `e.timestamp >= ${instantSql(start, p)}`, `e.timestamp < ${instantSql(end, p)}`];
  return `SELECT ${read.actor} FROM ${read.from} WHERE ${where.join(' AND ')}`;
}

/** The intervals after a target row's cohort that its actor returned in. */
const RETURNED_AFTER = 'arrayFilter((k) -> k > 0, arrayMap((period) -> period - cohort, periods))';

/**
 * Rows of `(line, interval, value)`: the distinct actors of a line (a cohort index, or a breakdown value)
 * retained `interval` periods after their cohort; interval 0 is the line's size.
 */
export function retentionCountsSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const line = query.breakdown ? 'breakdown_value' : 'toString(cohort)';
  return p.sql(`${retentionCte(query, ctx, p)}
    SELECT line, interval, toFloat64(uniqExact(actor)) AS value FROM (
      SELECT actor, ${line} AS line, arrayJoin(arrayConcat([0], ${RETURNED_AFTER})) AS interval FROM target)
    GROUP BY line, interval`);
}

/** Rows of `(line, cohort, interval, value)`: a breakdown line's actors of one cohort retained `interval` periods after it. */
export function retentionCohortCountsSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  return p.sql(`${retentionCte(query, ctx, p)}
    SELECT line, cohort, interval, toFloat64(uniqExact(actor)) AS value FROM (
      SELECT actor, breakdown_value AS line, cohort, arrayJoin(arrayConcat([0], ${RETURNED_AFTER})) AS interval FROM target)
    GROUP BY line, cohort, interval`);
}

/**
 * One page of the actors of one cohort (or breakdown line), each with the intervals they came back in (of the
 * `intervals` the line shows): most appearances first (the cohort's own period counts), then by actor (persons by
 * id, groups by key in byte order). Paged here, so a page of a cohort of 370,000 sends 100 rows, not all of them.
 */
export function retentionActorsSql(query: InsightQuery, selection: RetentionActorsSelection, intervals: number, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  const cte = retentionCte(query, ctx, p, selection.breakdownValue === undefined ? (selection.cohort ?? 0) : null);
  const where = selection.breakdownValue !== undefined ? `breakdown_value = ${p.add(selection.breakdownValue, 'String')}` : `cohort = ${p.add(selection.cohort ?? 0, 'Int64')}`;
  const shown = `arrayFilter((k) -> k < ${p.add(intervals, 'Int64')}, arraySort(groupUniqArrayArray(${RETURNED_AFTER})))`;
  return p.sql(`${cte}
    SELECT toString(actor_key) AS actor, intervals FROM (
      SELECT actor AS actor_key, ${shown} AS intervals FROM target WHERE ${where} GROUP BY actor_key
      ORDER BY length(intervals) DESC, actor_key ASC LIMIT ${p.add(selection.limit, 'Int64')} OFFSET ${p.add(selection.offset, 'Int64')})`);
}
