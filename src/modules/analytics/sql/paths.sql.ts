import { ChParams } from '../engine/ch-sql';
import { HOT_EVENT_PROPERTIES } from '../engine/schema/hot-properties';
import type { InsightQuery } from '../model/insight-query';
import { actorSequencesSql, actorSql, BuiltSql, eventsFrom, joinNeeds, scopeWhere, SqlContext } from './event-scope.sql';

/**
 * A paths insight's events as SQL: one row per actor with their path events in time order, each as an
 * instant (ms) and a path item: a page view's URL without one trailing slash, a screen's name, or the
 * event's name. Cleaning, grouping and sessions are the service's (model/path-building.ts).
 */
export function pathEventsSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  const options = query.paths!;
  const p = new ChParams();
  const kinds: string[] = [];
  if (options.eventTypes.includes('$pageview')) kinds.push(`e.event = '$pageview'`);
  if (options.eventTypes.includes('$screen')) kinds.push(`e.event = '$screen'`);
  if (options.eventTypes.includes('custom_event')) kinds.push(`NOT startsWith(e.event, '$')`);
  if (options.customEvents.length > 0) kinds.push(`e.event IN ${p.add(options.customEvents, 'Array(String)')}`);
  const where = [...scopeWhere(query, query.range, ctx, p), `(${kinds.join(' OR ')})`];
  const from = eventsFrom(joinNeeds(query, ctx, [], true), ctx, p);
  const url = `e.${HOT_EVENT_PROPERTIES.get('$current_url')}`;
  const screen = `e.${HOT_EVENT_PROPERTIES.get('$screen_name')}`;
  const item = `multiIf(e.event = '$pageview', replaceRegexpOne(${url}, '(.)/$', '\\\\1'), e.event = '$screen', ${screen}, e.event)`;
  return p.sql(actorSequencesSql(actorSql(query, ctx, p), [{ name: 'items', sql: item, nullable: true }], from, where));
}
