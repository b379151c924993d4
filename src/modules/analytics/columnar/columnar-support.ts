import type { PropertyNode } from '../../events/property-filters';
import type { InsightQuery } from '../model/insight-query';
import type { SqlContext } from '../sql/event-scope.sql';
import type { FunnelReadOptions } from '../sql/funnel.sql';

/**
 * Which queries the in-memory columns answer. They hold each event's time, name, distinct id (and its
 * person now) and path item, not its properties, so anything that filters on properties, aggregates by
 * groups, or reads a property math goes to PostgreSQL, which answers every query.
 */

/** Persons as actors, and no property filter anywhere: not the query's, the test accounts', nor any entity's. */
export function plainScope(query: InsightQuery, ctx: SqlContext, entityFilters: Array<PropertyNode | null>): boolean {
  if (query.aggregationGroupTypeIndex !== null || query.properties !== null) return false;
  if (query.filterTestAccounts && ctx.testAccountFilters !== null) return false;
  return entityFilters.every((filter) => filter === null);
}

/** Trends of event counts and daily persons, without a breakdown or by one person property. */
export function columnarTrends(query: InsightQuery, ctx: SqlContext): boolean {
  if (!plainScope(query, ctx, query.series.map((s) => s.properties))) return false;
  if (!query.series.every((s) => s.math === 'total' || s.math === 'dau')) return false;
  // Cumulative persons count each one at their first event: read from PostgreSQL.
  if (query.display === 'ActionsLineGraphCumulative' && query.series.some((s) => s.math === 'dau')) return false;
  return noBreakdownOrOnePersonProperty(query);
}

/** What the columns break down by: nothing, or one person property (each person's value is kept per copy). */
function noBreakdownOrOnePersonProperty(query: InsightQuery): boolean {
  const breakdown = query.breakdown;
  return breakdown === null || (breakdown.kind === 'property' && breakdown.properties.length === 1 && breakdown.properties[0].type === 'person');
}

/** The person-property key a columnar trend or funnel breaks down by, if any (see noBreakdownOrOnePersonProperty). */
export function personBreakdownKey(query: InsightQuery): string | null {
  return query.breakdown?.kind === 'property' ? query.breakdown.properties[0].key : null;
}

/** Stickiness and lifecycle count persons by when they were active, whatever the math. */
export function columnarActivity(query: InsightQuery, ctx: SqlContext): boolean {
  return plainScope(query, ctx, query.series.map((s) => s.properties));
}

/** Funnel reads without cohorts or property reads: steps, exclusions, names and marks by event name only. */
export function columnarFunnel(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions): boolean {
  const filters = [...query.series.map((s) => s.properties), ...(query.funnel?.exclusions ?? []).map((e) => e.properties), options.extraFilter ?? null, options.marked?.properties ?? null];
  if (!plainScope(query, ctx, filters) || typeof options.cohort === 'number' || options.propertiesOf) return false;
  return noBreakdownOrOnePersonProperty(query);
}

/** Paths of page views, screens and custom events by name (their items are held in the columns). */
export function columnarPaths(query: InsightQuery, ctx: SqlContext): boolean {
  return plainScope(query, ctx, []);
}

/** Retention without a breakdown or filters: cohorts and returns by event name only. */
export function columnarRetention(query: InsightQuery, ctx: SqlContext): boolean {
  const options = query.retention;
  return options !== undefined && query.breakdown === null && plainScope(query, ctx, [options.target.properties, options.returning.properties]);
}
