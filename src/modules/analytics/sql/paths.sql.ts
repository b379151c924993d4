import { SqlParams } from '../../../database/sql-params';
import { needsPerson } from '../../events/property-filter-sql';
import type { InsightQuery } from '../model/insight-query';
import { actorSql, BuiltSql, filterSql, joinsSql, SqlContext, usesPersonActor } from './event-scope.sql';

/**
 * A paths insight's events as SQL: one row per actor with their path events in time order, each as an
 * instant (ms) and a path item: a page view's URL without one trailing slash, a screen's name, or the
 * event's name. Cleaning, grouping and sessions are the service's (model/path-building.ts).
 */
export function pathEventsSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  const options = query.paths!;
  const p = new SqlParams();
  const kinds: string[] = [];
  if (options.eventTypes.includes('$pageview')) kinds.push(`e.event = '$pageview'`);
  if (options.eventTypes.includes('$screen')) kinds.push(`e.event = '$screen'`);
  if (options.eventTypes.includes('custom_event')) kinds.push(`left(e.event, 1) <> '$'`);
  if (options.customEvents.length > 0) kinds.push(`e.event = ANY(${p.add(options.customEvents)}::text[])`);
  const where = [
    `e.project_id = ${p.add(ctx.projectId)}`,
    `e.timestamp >= ${p.add(query.range.from.toISO())}::timestamptz`,
    `e.timestamp <= ${p.add(query.range.to.toISO())}::timestamptz`,
    `(${kinds.join(' OR ')})`,
  ];
  if (query.properties) where.push(filterSql(query.properties, ctx, p));
  if (query.filterTestAccounts && ctx.testAccountFilters) where.push(filterSql(ctx.testAccountFilters, ctx, p));
  const personProperties = [query.properties, query.filterTestAccounts ? ctx.testAccountFilters : null].some(needsPerson);
  const joins = joinsSql({ actor: usesPersonActor(query) || personProperties, personProperties });
  const actor = actorSql(query, ctx, p);
  const item = `CASE WHEN e.event = '$pageview' THEN regexp_replace(e.properties ->> '$current_url', '(.)/$', '\\1')
    WHEN e.event = '$screen' THEN e.properties ->> '$screen_name' ELSE e.event END`;
  const text = `SELECT actor, array_agg(at ORDER BY at, uuid) AS times, array_agg(item ORDER BY at, uuid) AS items FROM (
      SELECT (${actor})::text AS actor, e.uuid, (extract(epoch FROM e.timestamp) * 1000)::float8 AS at, ${item} AS item
        FROM event e ${joins} WHERE ${where.join(' AND ')}) path_events
    WHERE actor IS NOT NULL GROUP BY actor`;
  return { text, values: p.values };
}
