import type { PropertyNode } from '../../events/property-filters';
import { ChParams } from '../engine/ch-sql';
import { funnelSpecOf } from '../model/funnel-evaluation';
import type { FunnelActorsSelection, InsightQuery } from '../model/insight-query';
import { actorSequencesSql, actorSql, BuiltSql, cohortMemberSql, entityWhere, eventsFrom, filterSql, joinNeeds, scopeWhere, SqlContext } from './event-scope.sql';
import { FunnelOutcomeSpec, funnelSelectedActorsSql, funnelStepsSql } from './funnel-outcome.sql';
import { breakdownValueSql } from './trends.sql';

/**
 * A funnel's events as SQL: one row per actor with their matching events in time order, each as an
 * instant (ms since the epoch) and a bit mask: bit i for step i, bit `stepCount + j` for exclusion j.
 * Which run counts is decided per actor in model/funnel-evaluation.ts. Strict funnels read every event
 * of the range (any other event breaks a strict sequence); the others read only step and exclusion events.
 */

/** One step's or exclusion's events as one condition (`1` for "any event" without filters). */
function entitySql(event: string | null, properties: PropertyNode | null, ctx: SqlContext, p: ChParams): string {
  const where = entityWhere(event, properties, ctx, p);
  return where.length === 0 ? '1' : `(${where.join(' AND ')})`;
}

/** Steps first, then exclusions: the bit order funnel-evaluation reads. */
function entities(query: InsightQuery): Array<{ event: string | null; properties: PropertyNode | null }> {
  return [...query.series.map((s) => ({ event: s.event, properties: s.properties })), ...(query.funnel?.exclusions ?? [])];
}

/** What a funnel read adds: one cohort's actors, every event with its name, some events' properties, marks. */
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
  const p = new ChParams();
  return p.sql(funnelSequencesSql(query, ctx, options, p));
}

/** The funnel's step lines (counts and conversion times per breakdown line), evaluated in the engine. */
export function funnelStepLinesSql(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null): BuiltSql {
  const p = new ChParams();
  return p.sql(funnelStepsSql(funnelOutcomeSpecOf(query), funnelSequencesSql(query, ctx, { cohort }, p), p));
}

/** The actors (with their line) a persons request selects by step, evaluated in the engine. */
export function funnelStepActorsSql(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, selection: FunnelActorsSelection): BuiltSql {
  const p = new ChParams();
  return p.sql(funnelSelectedActorsSql(funnelOutcomeSpecOf(query), funnelSequencesSql(query, ctx, { cohort }, p), selection, p));
}

function funnelOutcomeSpecOf(query: InsightQuery): FunnelOutcomeSpec {
  return { ...funnelSpecOf(query), attribution: query.breakdown?.kind === 'property' ? query.funnel!.attribution : null };
}

function funnelSequencesSql(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions, p: ChParams): string {
  const steps = entities(query);
  const conditions = steps.map((entity) => entitySql(entity.event, entity.properties, ctx, p));
  const mask = conditions.map((condition, bit) => `if(${condition}, ${2 ** bit}, 0)`).join(' + ');
  const where = scopeWhere(query, query.range, ctx, p);
  const marked = options.marked ? entitySql(options.marked.event, options.marked.properties, ctx, p) : null;
  if (query.funnel?.orderType !== 'strict' && !options.withNames) where.push(`(${[...conditions, ...(marked ? [marked] : [])].join(' OR ')})`);
  if (options.extraFilter) where.push(filterSql(options.extraFilter, ctx, p));
  if (typeof options.cohort === 'number') where.push(cohortMemberSql(options.cohort, ctx, p));
  const needs = joinNeeds(query, ctx, [...steps.map((e) => e.properties), options.extraFilter ?? null], true);
  if (typeof options.cohort === 'number') needs.actor = true;
  const columns: Array<[string, string]> = [['masks', `toInt64(${mask})`]];
  if (query.breakdown?.kind === 'property') columns.push(['values', breakdownValueSql(query, ctx, p)]);
  if (options.withNames) columns.push(['names', 'e.event']);
  if (marked) columns.push(['marks', `toBool(${marked})`]);
  if (options.propertiesOf) columns.push(['properties', `if(e.event IN ${p.add(options.propertiesOf, 'Array(String)')}, e.properties, NULL)`]);
  const actor = actorSql(query, ctx, p);
  return actorSequencesSql(actor, columns, eventsFrom(needs, ctx, p), where);
}
