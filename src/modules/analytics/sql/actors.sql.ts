import { likePattern } from '../../../database/like-pattern';
import { ChParams } from '../engine/ch-sql';
import { DateRange, InsightQuery, isFirstTime, PROPERTY_MATHS, Series } from '../model/insight-query';
import { BuiltSql, currentPersonsSql, groupKeySql, personIdSql, SqlContext } from './event-scope.sql';
import { ActorKind, actorKindOf, BreakdownSlice, firstTimeActorsSql, propertyAggregateSql, seriesActorSql, sliceScope } from './trends.sql';

/**
 * PostHog's actor search: the person's email or name, or the event's distinct id, contains the text
 * (a group's key or name for groups).
 */
export function searchConditions(search: string | undefined, actor: ActorKind, ctx: SqlContext) {
  return (p: ChParams): string[] => {
    if (!search) return [];
    const pattern = p.add(likePattern(search, '%', '%'), 'String');
    const team = p.add(ctx.projectId, 'Int64');
    if (actor.kind === 'group') {
      const key = groupKeySql(actor.groupTypeIndex, ctx, p);
      return [`(${key} ILIKE ${pattern} OR ${key} IN (SELECT group_key FROM (SELECT group_key, argMax(properties, version) AS props, argMax(is_deleted, version) AS deleted
        FROM groups WHERE team_id = ${team} AND group_type_index = ${p.add(actor.groupTypeIndex, 'UInt8')} GROUP BY group_key)
        WHERE deleted = 0 AND JSONExtractString(props, 'name') ILIKE ${pattern}))`];
    }
    return [`(e.distinct_id ILIKE ${pattern} OR ${personIdSql(ctx)} IN (SELECT id FROM ${currentPersonsSql(team, ['properties'])}
      WHERE JSONExtractString(properties, 'email') ILIKE ${pattern} OR JSONExtractString(properties, 'name') ILIKE ${pattern}))`];
  };
}

/** Each actor's own value at the data point: its number of events, or the property math over them. */
function actorValueSql(series: Series, p: ChParams): string {
  if (!(PROPERTY_MATHS as readonly string[]).includes(series.math)) return 'toFloat64(count())';
  return propertyAggregateSql(series, p);
}

/**
 * The actors behind one trends point: everyone with a matching event in the point's range (whatever the
 * math), with their value, largest first (then by actor, descending, as PostHog pages them).
 */
export function trendActorsSql(
  query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, search: string | undefined, ctx: SqlContext, page: { limit: number; offset: number },
): BuiltSql {
  const p = new ChParams();
  const kind = actorKindOf(query, series);
  const pageSql = `ORDER BY value DESC NULLS LAST, actor_key DESC LIMIT ${p.add(page.limit, 'UInt64')} OFFSET ${p.add(page.offset, 'UInt64')}`;
  if (isFirstTime(series.math)) {
    // A searched actor matches on any of its events (its person, or any of its distinct ids), not only the first.
    const matches = searchConditions(search, kind, ctx)(p).map((condition) => `countIf(${condition}) > 0`);
    return p.sql(`SELECT toString(actor_key) AS actor, toFloat64(1) AS value FROM (${firstTimeActorsSql(query, { ...series, math: series.math }, range, slice, ctx, p, matches)}) ${pageSql}`);
  }
  const scope = sliceScope(query, series, range, slice, ctx, p, true);
  const actor = seriesActorSql(query, series, ctx, p);
  const where = [scope.where, `${actor} IS NOT NULL`, ...searchConditions(search, kind, ctx)(p)];
  return p.sql(`SELECT toString(actor_key) AS actor, value FROM (
      SELECT ${actor} AS actor_key, ${actorValueSql(series, p)} AS value FROM ${scope.from} WHERE ${where.join(' AND ')} GROUP BY actor_key)
    ${pageSql}`);
}

/**
 * The first `first` actors of `rows` (with an `actor` column, text) in the order `sortActors` puts them in: persons
 * by id as numbers, groups by key in byte order. The engine sorts and cuts, so only a page leaves it.
 */
export function firstInActorOrderSql(rows: string, groups: boolean, first: number, p: ChParams): string {
  return `SELECT actor FROM (${rows}) ORDER BY ${groups ? 'actor' : 'toInt64(actor)'} LIMIT ${p.add(first, 'UInt64')}`;
}
