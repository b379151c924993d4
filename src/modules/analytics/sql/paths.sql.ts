import { SqlParams } from '../../../database/sql-params';
import type { InsightQuery } from '../model/insight-query';
import { actorSequencesSql, actorSql, BuiltSql, joinsSql, personPropertiesNeeded, scopeWhere, SqlContext, usesPersonActor } from './event-scope.sql';

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
  const where = [...scopeWhere(query, query.range, ctx, p), `(${kinds.join(' OR ')})`];
  const personProperties = personPropertiesNeeded(query, ctx, []);
  const joins = joinsSql({ actor: usesPersonActor(query) || personProperties, personProperties });
  const item = `CASE WHEN e.event = '$pageview' THEN regexp_replace(e.properties ->> '$current_url', '(.)/$', '\\1')
    WHEN e.event = '$screen' THEN e.properties ->> '$screen_name' ELSE e.event END`;
  return { text: actorSequencesSql(actorSql(query, ctx, p), [['items', item]], `event e ${joins}`, where), values: p.values };
}
