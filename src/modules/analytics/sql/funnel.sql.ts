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

/** What a funnel read adds for correlation: every event of the range with its name, and some events' properties. */
export interface FunnelReadOptions {
  /** A cohort breakdown reads one cohort's members at a time (or every actor for "all"). */
  cohort?: number | 'all' | null;
  /** Every event of the range with its name (`names`), not only step and exclusion events. */
  withNames?: boolean;
  /** The properties (`properties`) of events with these names; null for every other event. */
  propertiesOf?: string[];
  /** Filters ANDed into the query's own (a correlation row's property values). */
  extraFilter?: PropertyNode | null;
  /** Marks (`marks`) the events of this event name and filters: a correlation row's persons have one. */
  marked?: { event: string; properties: PropertyNode | null };
}

/** With a property breakdown each event also carries its breakdown value (`values`). */
export function funnelEventsSql(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions = {}): BuiltSql {
  const p = new SqlParams();
  const conditions = entities(query).map((entity) => entitySql(entity.event, entity.properties, ctx, p));
  const mask = conditions.map((condition, bit) => `(CASE WHEN ${condition} THEN ${2 ** bit} ELSE 0 END)`).join(' + ');
  const where = [
    `e.project_id = ${p.add(ctx.projectId)}`,
    `e.timestamp >= ${p.add(query.range.from.toISO())}::timestamptz`,
    `e.timestamp <= ${p.add(query.range.to.toISO())}::timestamptz`,
  ];
  const marked = options.marked ? `(${entitySql(options.marked.event, options.marked.properties, ctx, p)})` : null;
  if (query.funnel?.orderType !== 'strict' && !options.withNames) where.push(`(${[...conditions, ...(marked ? [marked] : [])].join(' OR ')})`);
  for (const node of [query.properties, options.extraFilter ?? null]) if (node) where.push(filterSql(node, ctx, p));
  if (query.filterTestAccounts && ctx.testAccountFilters) where.push(filterSql(ctx.testAccountFilters, ctx, p));
  if (typeof options.cohort === 'number') where.push(filterSql({ kind: 'leaf', key: 'id', value: options.cohort, operator: 'exact', type: 'cohort', negation: false }, ctx, p));
  const values = query.breakdown?.kind === 'property' ? breakdownValueSql(query, ctx, p) : null;
  const personProperties = funnelNeedsPersonProperties(query, ctx) || needsPerson(options.extraFilter ?? null);
  const joins = joinsSql({ actor: usesPersonActor(query) || personProperties, personProperties });
  const actor = actorSql(query, ctx, p);
  const extra: Array<[string, string]> = [];
  if (values !== null) extra.push(['values', values]);
  if (options.withNames) extra.push(['names', 'e.event']);
  if (marked) extra.push(['marks', marked]);
  if (options.propertiesOf) extra.push(['properties', `CASE WHEN e.event = ANY(${p.add(options.propertiesOf)}::text[]) THEN e.properties END`]);
  const inner = extra.map(([name, sql]) => `, ${sql} AS extra_${name}`).join('');
  const outer = extra.map(([name]) => `, array_agg(extra_${name} ORDER BY at, uuid) AS "${name}"`).join('');
  const text = `SELECT actor, array_agg(at ORDER BY at, uuid) AS times, array_agg(mask ORDER BY at, uuid) AS masks${outer} FROM (
      SELECT (${actor})::text AS actor, e.uuid, (extract(epoch FROM e.timestamp) * 1000)::float8 AS at, (${mask})::int AS mask${inner}
        FROM event e ${joins} WHERE ${where.join(' AND ')}) matched
    WHERE actor IS NOT NULL GROUP BY actor`;
  return { text, values: p.values };
}
