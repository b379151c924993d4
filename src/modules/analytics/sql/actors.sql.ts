import { SqlParams } from '../../../database/sql-params';
import { likePattern } from '../../../database/like-pattern';
import { DateRange, InsightQuery, PROPERTY_MATHS, Series } from '../model/insight-query';
import { actorSql, BuiltSql, groupKeySql, SqlContext } from './event-scope.sql';
import { BreakdownSlice, propertyAggregateSql, sliceScope } from './trends.sql';

/** Who a series counts: persons, or groups of one type (`unique_group`, or aggregation by groups). */
export type ActorKind = { kind: 'person' } | { kind: 'group'; groupTypeIndex: number };

export function actorKindOf(query: InsightQuery, series: Series): ActorKind {
  if (series.math === 'unique_group' && series.mathGroupTypeIndex !== null) return { kind: 'group', groupTypeIndex: series.mathGroupTypeIndex };
  if (query.aggregationGroupTypeIndex !== null) return { kind: 'group', groupTypeIndex: query.aggregationGroupTypeIndex };
  return { kind: 'person' };
}

/**
 * PostHog's actor search: the person's email or name, or the event's distinct id, contains the text
 * (a group's key or name for groups). Read through the person of the distinct id, so no join is added.
 */
export function searchConditions(search: string | undefined, actor: ActorKind, ctx: SqlContext) {
  return (p: SqlParams): string[] => {
    if (!search) return [];
    const pattern = p.add(likePattern(search, '%', '%'));
    if (actor.kind === 'group') {
      const key = groupKeySql(actor.groupTypeIndex, ctx, p);
      return [`(${key} ILIKE ${pattern} OR EXISTS (SELECT 1 FROM "group" sg WHERE sg.project_id = e.project_id
        AND sg.group_type_index = ${p.add(actor.groupTypeIndex)} AND sg.group_key = ${key} AND sg.properties ->> 'name' ILIKE ${pattern}))`];
    }
    return [`(e.distinct_id ILIKE ${pattern} OR EXISTS (SELECT 1 FROM person sp WHERE sp.id = pd.person_id
      AND (sp.properties ->> 'email' ILIKE ${pattern} OR sp.properties ->> 'name' ILIKE ${pattern})))`];
  };
}

/** Each actor's own value at the data point: its number of events, or the property math over them. */
function actorValueSql(series: Series, p: SqlParams): string {
  if (!(PROPERTY_MATHS as readonly string[]).includes(series.math)) return 'count(*)::float8';
  return propertyAggregateSql(series, p);
}

/**
 * The actors behind one trends point: everyone with a matching event in the point's range (whatever the
 * math), with their value, largest first (then by actor, descending, as PostHog pages them).
 */
export function trendActorsSql(
  query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, search: string | undefined, ctx: SqlContext, page: { limit: number; offset: number },
): BuiltSql {
  const p = new SqlParams();
  const kind = actorKindOf(query, series);
  const scope = sliceScope(query, series, range, slice, ctx, p, kind.kind === 'person');
  const actor = kind.kind === 'person' ? actorSql({ ...query, aggregationGroupTypeIndex: null }, ctx, p) : groupKeySql(kind.groupTypeIndex, ctx, p);
  const where = [scope.where, `${actor} IS NOT NULL`, ...searchConditions(search, kind, ctx)(p)];
  const text = `SELECT ${actor} AS actor, ${actorValueSql(series, p)} AS value FROM ${scope.from} WHERE ${where.join(' AND ')}
    GROUP BY 1 ORDER BY 2 DESC NULLS LAST, 1 DESC LIMIT ${p.add(page.limit)} OFFSET ${p.add(page.offset)}`;
  return { text, values: p.values };
}
