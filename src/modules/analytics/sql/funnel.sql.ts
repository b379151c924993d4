import { prefixIndexedEqualsValue } from '../../../database/prefix-index';
import { SqlParams } from '../../../database/sql-params';
import { needsPerson } from '../../events/property-filter-sql';
import type { PropertyNode } from '../../events/property-filters';
import type { InsightQuery } from '../model/insight-query';
import { actorSql, BuiltSql, filterSql, joinsSql, SqlContext, usesPersonActor } from './event-scope.sql';
import { breakdownValueSql } from './trends.sql';

/**
 * A funnel's events as SQL: one row per actor with their matching events in time order, each as an
 * instant (ms since the epoch) and a bit mask: bit i for step i, bit `stepCount + j` for exclusion j.
 * Which run counts is decided per actor in model/funnel-evaluation.ts. Strict funnels read every event
 * of the range (any other event breaks a strict sequence); the others read only step and exclusion events.
 */

/** The SQL condition of one step or exclusion: its event (any event when null) and its own filters. */
function entitySql(event: string | null, properties: PropertyNode | null, ctx: SqlContext, p: SqlParams): string {
  const parts = [event === null ? 'TRUE' : prefixIndexedEqualsValue('e.event', event, (v) => p.add(v))];
  if (properties) parts.push(filterSql(properties, ctx, p));
  return `(${parts.join(' AND ')})`;
}

/** Steps first, then exclusions: the bit order funnel-evaluation reads. */
function entities(query: InsightQuery): Array<{ event: string | null; properties: PropertyNode | null }> {
  return [...query.series.map((s) => ({ event: s.event, properties: s.properties })), ...(query.funnel?.exclusions ?? [])];
}

export function funnelNeedsPersonProperties(query: InsightQuery, ctx: SqlContext): boolean {
  const nodes = [query.properties, query.filterTestAccounts ? ctx.testAccountFilters : null, ...entities(query).map((e) => e.properties)];
  const breakdownByPerson = query.breakdown?.kind === 'cohort' || (query.breakdown?.kind === 'property' && query.breakdown.properties.some((b) => b.type === 'person'));
  return breakdownByPerson || nodes.some(needsPerson);
}

/**
 * With a property breakdown each event also carries its breakdown value (`breakdown_values`); a cohort
 * breakdown reads one cohort's members at a time (`cohort`, or every actor for "all").
 */
export function funnelEventsSql(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null = null): BuiltSql {
  const p = new SqlParams();
  const conditions = entities(query).map((entity) => entitySql(entity.event, entity.properties, ctx, p));
  const mask = conditions.map((condition, bit) => `(CASE WHEN ${condition} THEN ${2 ** bit} ELSE 0 END)`).join(' + ');
  const where = [
    `e.project_id = ${p.add(ctx.projectId)}`,
    `e.timestamp >= ${p.add(query.range.from.toISO())}::timestamptz`,
    `e.timestamp <= ${p.add(query.range.to.toISO())}::timestamptz`,
  ];
  if (query.funnel?.orderType !== 'strict') where.push(`(${conditions.join(' OR ')})`);
  if (query.properties) where.push(filterSql(query.properties, ctx, p));
  if (query.filterTestAccounts && ctx.testAccountFilters) where.push(filterSql(ctx.testAccountFilters, ctx, p));
  if (typeof cohort === 'number') where.push(filterSql({ kind: 'leaf', key: 'id', value: cohort, operator: 'exact', type: 'cohort', negation: false }, ctx, p));
  const values = query.breakdown?.kind === 'property' ? breakdownValueSql(query, ctx, p) : null;
  const personProperties = funnelNeedsPersonProperties(query, ctx);
  const joins = joinsSql({ actor: usesPersonActor(query) || personProperties, personProperties });
  const actor = actorSql(query, ctx, p);
  const valuesColumn = values === null ? '' : ', array_agg(breakdown_value ORDER BY at, uuid) AS "values"';
  const text = `SELECT actor, array_agg(at ORDER BY at, uuid) AS times, array_agg(mask ORDER BY at, uuid) AS masks${valuesColumn} FROM (
      SELECT (${actor})::text AS actor, e.uuid, (extract(epoch FROM e.timestamp) * 1000)::float8 AS at, (${mask})::int AS mask,
        ${values ?? 'NULL::text'} AS breakdown_value
        FROM event e ${joins} WHERE ${where.join(' AND ')}) matched
    WHERE actor IS NOT NULL GROUP BY actor`;
  return { text, values: p.values };
}
