import type { PropertyNode } from '../../../kernel/property-filters';
import { ChParams } from '../engine/ch-sql';
import { funnelSpecOf } from '../model/funnel-evaluation';
import type { FunnelActorsSelection, InsightQuery } from '../model/insight-query';
import { firstInActorOrderSql } from './actors.sql';
import { actorSequencesSql, actorSql, bucketSql, bucketTextSql, BuiltSql, cohortMemberSql, currentPersonsSql, EntityRef, entityFilters, entityWhere, eventsFrom, filterSql, joinNeeds, personBreakdownColumns, personBreakdownKeys, scopeWhere, SequenceColumn, SqlContext } from './event-scope.sql';
import {
  conversionSecondsSql, correlationActorsSql, correlationEventsSql, FunnelEventsInput, FunnelOutcomeSpec, FunnelPathSpan, funnelSpansSql, OtherLine, stepActorsSql, stepLinesSql,
  trendActorsSql, trendLinesSql,
} from './funnel-outcome.sql';
import { breakdownValueSql } from './trends.sql';

/**
 * A funnel's reads. Every one selects the funnel's events with a bit mask each (bit i for step i, bit
 * `stepCount + j` for exclusion j): strict funnels every event of the range (any other event breaks a strict
 * sequence), the others only step and exclusion events. All but one are evaluated in the engine
 * (sql/funnel-outcome.sql.ts); event-property correlation streams each actor's events in time order
 * (`funnelEventsSql`) and evaluates them with model/funnel-evaluation.ts.
 */

/** One step's or exclusion's events as one condition (`1` for "any event" without filters). */
function entitySql(entity: EntityRef, ctx: SqlContext, p: ChParams): string {
  const where = entityWhere(entity, ctx, p);
  return where.length === 0 ? '1' : `(${where.join(' AND ')})`;
}

/** Steps first, then exclusions: the bit order funnel-evaluation reads. */
function entities(query: InsightQuery): EntityRef[] {
  return [...query.series, ...(query.funnel?.exclusions ?? [])];
}

/** What a funnel read adds: one cohort's actors, every event with its name, some events' properties, marks. */
export interface FunnelReadOptions {
  /** A cohort breakdown reads one cohort's members at a time (or every actor for "all"). */
  cohort?: number | 'all' | null;
  /** Every event of the range, not only step and exclusion events (streamed sequences: with its name, `names`). */
  withNames?: boolean;
  /** The properties (`properties`) of events with these names; null for every other event. */
  propertiesOf?: string[];
  /** Filters ANDed into the query's own (a correlation row's property values). */
  extraFilter?: PropertyNode | null;
  /** Marks (`marks`) the events of this event name and filters: a correlation row's persons have one. */
  marked?: { event: string; properties: PropertyNode | null };
}

/** Each actor's funnel events in time order, one row per actor, for the reads evaluated in the process. */
export function funnelEventsSql(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions = {}): BuiltSql {
  const p = new ChParams();
  return p.sql(streamedSequencesSql(query, ctx, options, p));
}

/** A funnel evaluated in the engine (sql/funnel-outcome.sql.ts) over its events, one cohort's for a cohort line. */
function inEngine(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, build: (spec: FunnelOutcomeSpec, input: FunnelEventsInput, p: ChParams) => string): BuiltSql {
  const p = new ChParams();
  return p.sql(evaluated(query, ctx, cohort, p, build));
}

function evaluated(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, p: ChParams, build: (spec: FunnelOutcomeSpec, input: FunnelEventsInput, p: ChParams) => string): string {
  const spec: FunnelOutcomeSpec = { ...funnelSpecOf(query), attribution: query.breakdown?.kind === 'property' ? query.funnel!.attribution : null };
  const perActor = personLineOf(query, spec);
  const read = funnelRead(perActor ? { ...query, breakdown: null } : query, ctx, { cohort }, p);
  const value = query.breakdown?.kind === 'property' ? breakdownValueSql(query, ctx, p) : null;
  const personLine = perActor && value ? { persons: currentPersonsSql(p.add(ctx.projectId, 'Int64'), personBreakdownColumns(personBreakdownKeys(query), p)), value } : undefined;
  return build(spec, { ...read, value, personLine }, p);
}

/** Funnel paths' actors and the span of each one's events their paths read, as a subquery (`actor`, `span_from`, `span_to`). */
export function funnelSpansSubquery(query: InsightQuery, span: FunnelPathSpan, ctx: SqlContext, p: ChParams): string {
  return evaluated({ ...query, breakdown: null }, ctx, null, p, (spec, input) => funnelSpansSql(spec, input, span, p));
}

/**
 * Whether the breakdown is read once per actor: person properties of persons (their one value for all their events)
 * attributed to one event (all_events filters each value's events, so it needs the value on every event).
 */
function personLineOf(query: InsightQuery, spec: FunnelOutcomeSpec): boolean {
  const breakdown = query.breakdown;
  return breakdown?.kind === 'property' && breakdown.properties.every((b) => b.type === 'person') && query.aggregationGroupTypeIndex === null && spec.attribution?.type !== 'all_events';
}

/** Correlation in the engine: the funnel without its breakdown, with what the read asks for beside the steps. */
function correlationInEngine(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions, build: (spec: FunnelOutcomeSpec, input: FunnelEventsInput, rangeEnd: number, p: ChParams) => string): BuiltSql {
  const p = new ChParams();
  const input: FunnelEventsInput = { ...funnelRead(query, ctx, options, p), value: null };
  return p.sql(build({ ...funnelSpecOf(query), attribution: null }, input, query.range.to.toMillis(), p));
}

/** Event correlation: per event name (but `skipped`) in some actor's funnel span, how many who converted and who did not saw it. */
export function funnelCorrelationEventsSql(query: InsightQuery, ctx: SqlContext, skipped: string[]): BuiltSql {
  return correlationInEngine(query, ctx, {}, (spec, input, rangeEnd, p) => {
    // Every event in the query's scope is a candidate, but those of the names skipped (the steps', the excluded).
    const scope = funnelRead(query, ctx, { withNames: true }, p);
    const candidates = { actor: scope.actor, name: 'e.event', from: scope.from, where: [...scope.where, `NOT has(${p.add(skipped, 'Array(String)')}, e.event)`] };
    return correlationEventsSql(spec, input, candidates, rangeEnd, p);
  });
}

/**
 * Who entered the funnel (with whether they converted): of a row's event when `marked`, among events with
 * `extraFilter`; only the first `first` in actor order (`actor` alone) when given.
 */
export function funnelCorrelationActorsSql(
  query: InsightQuery, ctx: SqlContext, options: Pick<FunnelReadOptions, 'marked' | 'extraFilter'>, converted: boolean | null, first: number | null = null,
): BuiltSql {
  return correlationInEngine(query, ctx, options, (spec, input, rangeEnd, p) => firstActorsSql(query, correlationActorsSql(spec, input, rangeEnd, converted, p), first, p));
}

/** The funnel's step lines: per breakdown line, actors who entered, per step how many reached it and their conversion times. */
export function funnelStepLinesSql(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, other?: OtherLine): BuiltSql {
  return inEngine(query, ctx, cohort, (spec, input, p) => stepLinesSql(spec, input, p, other));
}

/** The actors (with their line) a persons request selects by step; only the first `first` in actor order (`actor` alone) when given. */
export function funnelStepActorsSql(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, selection: FunnelActorsSelection, first: number | null = null): BuiltSql {
  return inEngine(query, ctx, cohort, (spec, input, p) => firstActorsSql(query, stepActorsSql(spec, input, selection, p), first, p));
}

/** A funnel's actors: the first `first` in actor order (`actor`), or all of them as `actors` lists them, unordered, for `null`. */
function firstActorsSql(query: InsightQuery, actors: string, first: number | null, p: ChParams): string {
  return first === null ? actors : firstInActorOrderSql(actors, query.aggregationGroupTypeIndex !== null, first, p);
}

/** Funnel trends: per line, per entrance period, how many actors reached the `from` step and the `to` step. */
export function funnelTrendLinesSql(query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, other?: OtherLine): BuiltSql {
  return inEngine(query, ctx, cohort, (spec, input, p) => trendLinesSql(spec, input, entrancePeriod(query, p), query.funnel!, p, other));
}

/** The actors (with their line) of one funnel trends point; only the first `first` in actor order (`actor` alone) when given. */
export function funnelTrendActorsSql(
  query: InsightQuery, ctx: SqlContext, cohort: number | 'all' | null, point: { period: string; dropOff: boolean }, first: number | null = null,
): BuiltSql {
  return inEngine(query, ctx, cohort, (spec, input, p) => firstActorsSql(query, trendActorsSql(spec, input, entrancePeriod(query, p), { ...query.funnel!, ...point }, p), first, p));
}

/** Time to convert: the conversion times of the actors who reached the `to` step, grouped by whole second. */
export function funnelConversionSecondsSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  return inEngine(query, ctx, null, (spec, input, p) => conversionSecondsSql(spec, input, query.funnel!, p));
}

/** The bucket (as the presenters key it) holding an instant in ms, in the project's zone. */
function entrancePeriod(query: InsightQuery, p: ChParams): (ms: string) => string {
  const zone = p.add(query.timezone, 'String');
  return (ms) => bucketTextSql(bucketSql(query.interval, query.weekStartDay, zone, `fromUnixTimestamp64Milli(toInt64(floor(${ms})))`));
}

/** What every funnel read shares: the actor, each event's step and exclusion bits (and marks, when asked), FROM and WHERE. */
function funnelRead(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions, p: ChParams): Omit<FunnelEventsInput, 'value'> {
  const steps = entities(query);
  const conditions = steps.map((entity) => entitySql(entity, ctx, p));
  const mask = conditions.map((condition, bit) => `if(${condition}, ${2 ** bit}, 0)`).join(' + ');
  const where = scopeWhere(query, query.range, ctx, p);
  const marked = options.marked ? entitySql(options.marked, ctx, p) : null;
  if (query.funnel?.orderType !== 'strict' && !options.withNames) where.push(`(${[...conditions, ...(marked ? [marked] : [])].join(' OR ')})`);
  if (options.extraFilter) where.push(filterSql(options.extraFilter, ctx, p));
  if (typeof options.cohort === 'number') where.push(cohortMemberSql(options.cohort, ctx, p));
  const needs = joinNeeds(query, ctx, [...steps.flatMap(entityFilters), options.extraFilter ?? null], true);
  if (typeof options.cohort === 'number') needs.actor = true;
  return { actor: actorSql(query, ctx, p), mask, marked, from: eventsFrom(needs, ctx, p), where };
}

/** The sequences event-property correlation visits: each actor's events with their bits, names and properties when asked. */
function streamedSequencesSql(query: InsightQuery, ctx: SqlContext, options: FunnelReadOptions, p: ChParams): string {
  const read = funnelRead(query, ctx, options, p);
  const columns: SequenceColumn[] = [{ name: 'masks', sql: `toInt64(${read.mask})` }];
  if (options.withNames) columns.push({ name: 'names', sql: 'e.event' });
  if (options.propertiesOf) columns.push({ name: 'properties', sql: `if(e.event IN ${p.add(options.propertiesOf, 'Array(String)')}, e.properties, NULL)`, nullable: true });
  return actorSequencesSql(read.actor, columns, read.from, read.where, { ties: query.funnel?.orderType === 'strict' ? { column: 'masks' } : 'any' });
}
