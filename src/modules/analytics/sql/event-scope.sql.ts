import { prefixIndexedEqualsValue } from '../../../database/prefix-index';
import { SqlParams } from '../../../database/sql-params';
import { needsPerson, propertyFiltersToSql, type CohortDefinition } from '../../events/property-filter-sql';
import type { PropertyNode } from '../../events/property-filters';
import { BREAKDOWN_NULL, DateRange, InsightQuery, Interval, Series } from '../model/insight-query';

/**
 * The pieces every analytic query shares: which events (project, range, series, filters), who their actor
 * is, and which bucket they fall in. Every value is bound; only trusted SQL text is concatenated.
 */

/** What the SQL needs beyond the query: loaded cohorts, group type names, the project's test filters. */
export interface SqlContext {
  projectId: number;
  cohorts: ReadonlyMap<number, CohortDefinition>;
  /** group_type_index → group type name (the key under `$groups` on events). */
  groupTypes: ReadonlyMap<number, string>;
  testAccountFilters: PropertyNode | null;
  now: Date;
}

export interface BuiltSql {
  text: string;
  values: unknown[];
}

const PERSON_JOIN = `LEFT JOIN person_distinct_id pd ON pd.project_id = e.project_id AND pd.distinct_id = e.distinct_id`;
const PERSON_PROPERTIES_JOIN = `LEFT JOIN person pp ON pp.id = pd.person_id`;
const PERSON_PROPERTIES = `coalesce(pp.properties, '{}'::jsonb)`;

/** Which person data a query needs joined: the actor (distinct id → person now) and/or their properties. */
export interface JoinNeeds {
  actor: boolean;
  personProperties: boolean;
}

export function joinsSql(needs: JoinNeeds): string {
  if (needs.personProperties) return `${PERSON_JOIN} ${PERSON_PROPERTIES_JOIN}`;
  return needs.actor ? PERSON_JOIN : '';
}

/** The group key of an event for a group type index; NULL when the type is unknown here. */
export function groupKeySql(index: number, ctx: SqlContext, p: SqlParams): string {
  const name = ctx.groupTypes.get(index);
  return name === undefined ? 'NULL::text' : `(e.properties -> '$groups' ->> ${p.add(name)}::text)`;
}

/**
 * The actor an event counts for: the person that owns its distinct id when the query runs (merges move
 * distinct ids, so merged persons' events count once, for the survivor), or a group key when aggregating
 * by groups. Events of distinct ids without a person have no actor.
 */
export function actorSql(query: InsightQuery, ctx: SqlContext, p: SqlParams): string {
  return query.aggregationGroupTypeIndex === null ? 'pd.person_id' : groupKeySql(query.aggregationGroupTypeIndex, ctx, p);
}

export function usesPersonActor(query: InsightQuery): boolean {
  return query.aggregationGroupTypeIndex === null;
}

/** The bucket start of an event in the project's zone, as a local timestamp (weeks from Sunday or Monday). */
export function bucketSql(interval: Interval, weekStartDay: 0 | 1, zoneParam: string, column = 'e.timestamp'): string {
  const local = `(${column} AT TIME ZONE ${zoneParam})`;
  if (interval !== 'week') return `date_trunc('${interval}', ${local})`;
  return weekStartDay === 1 ? `date_trunc('week', ${local})` : `(date_trunc('week', ${local} + interval '1 day') - interval '1 day')`;
}

export function bucketTextSql(bucket: string): string {
  return `to_char(${bucket}, 'YYYY-MM-DD"T"HH24:MI:SS')`;
}

/** A local wall time as SQL `timestamp` (without zone), matching bucketSql's output. */
export function localTimestamp(key: string, p: SqlParams): string {
  return `${p.add(key)}::timestamp`;
}

/** Person or event property filters read against this query's joins. */
export function filterSql(node: PropertyNode | null, ctx: SqlContext, p: SqlParams): string {
  const columns = { event: 'e.properties', person: PERSON_PROPERTIES };
  const groupColumn = (index: number) => `coalesce(${groupPropertiesSql(index, ctx, p)}, '{}'::jsonb)`;
  return propertyFiltersToSql(node, { columns, groupColumn, personId: 'pd.person_id', now: ctx.now, cohorts: ctx.cohorts }, p);
}

/**
 * Whether a query's SQL must join person properties: its filters, the project's test-account filters,
 * the given entity filters (series, steps, exclusions, retention entities), or a breakdown by person
 * property or cohort read them.
 */
export function personPropertiesNeeded(query: InsightQuery, ctx: SqlContext, entityFilters: Array<PropertyNode | null>): boolean {
  const breakdown = query.breakdown;
  if (breakdown?.kind === 'cohort' || (breakdown?.kind === 'property' && breakdown.properties.some((b) => b.type === 'person'))) return true;
  return [query.properties, query.filterTestAccounts ? ctx.testAccountFilters : null, ...entityFilters].some(needsPerson);
}

/** The conditions every analytic read shares: project, time range, the query's filters and the test-account filters. */
export function scopeWhere(query: InsightQuery, range: DateRange, ctx: SqlContext, p: SqlParams): string[] {
  return [...filtersWhere(query, ctx, p), `e.timestamp >= ${p.add(range.from.toISO())}::timestamptz`, `e.timestamp <= ${p.add(range.to.toISO())}::timestamptz`];
}

/** {@link scopeWhere} without the time range, for reads whose bounds differ per part (retention's first-time cohorts). */
export function filtersWhere(query: InsightQuery, ctx: SqlContext, p: SqlParams): string[] {
  const where = [`e.project_id = ${p.add(ctx.projectId)}`];
  if (query.properties) where.push(filterSql(query.properties, ctx, p));
  if (query.filterTestAccounts && ctx.testAccountFilters) where.push(filterSql(ctx.testAccountFilters, ctx, p));
  return where;
}

/** The conditions of one entity's events (a series, a funnel step or exclusion, a retention entity): its event (any when null) and its own filters. */
export function entityWhere(event: string | null, properties: PropertyNode | null, ctx: SqlContext, p: SqlParams): string[] {
  const where: string[] = [];
  if (event !== null) where.push(prefixIndexedEqualsValue('e.event', event, (v) => p.add(v)));
  if (properties) where.push(filterSql(properties, ctx, p));
  return where;
}

/** The event's actor is a member of a cohort. */
export function cohortMemberSql(cohort: number, ctx: SqlContext, p: SqlParams): string {
  return filterSql({ kind: 'leaf', key: 'id', value: cohort, operator: 'exact', type: 'cohort', negation: false }, ctx, p);
}

/** The conditions of one series' events in a range: the shared scope and the series' own event and filters. */
export function seriesWhere(query: InsightQuery, series: Series, range: DateRange, ctx: SqlContext, p: SqlParams): string[] {
  return [...scopeWhere(query, range, ctx, p), ...entityWhere(series.event, series.properties, ctx, p)];
}

/**
 * Each actor's events in time order as one row: `times` (ms since the epoch) and one array per column
 * given (`name` → SQL over `e`), aligned with `times`. Funnels and paths evaluate these sequences per actor.
 */
export function actorSequencesSql(actor: string, columns: Array<[string, string]>, from: string, where: string[]): string {
  const inner = columns.map(([name, sql]) => `, ${sql} AS column_${name}`).join('');
  const outer = columns.map(([name]) => `, array_agg(column_${name} ORDER BY at, uuid) AS "${name}"`).join('');
  return `SELECT actor, array_agg(at ORDER BY at, uuid) AS times${outer} FROM (
      SELECT (${actor})::text AS actor, e.uuid, (extract(epoch FROM e.timestamp) * 1000)::float8 AS at${inner}
        FROM ${from} WHERE ${where.join(' AND ')}) sequence_events
    WHERE actor IS NOT NULL GROUP BY actor`;
}

/** A breakdown property's value on an event, as text; a missing value reads as PostHog's null marker. */
export function breakdownPropertySql(key: string, type: 'event' | 'person' | 'group', groupIndex: number | null, ctx: SqlContext, p: SqlParams): string {
  const keyParam = `${p.add(key)}::text`;
  let column = 'e.properties';
  if (type === 'person') column = PERSON_PROPERTIES;
  if (type === 'group') column = groupPropertiesSql(groupIndex ?? 0, ctx, p);
  return `coalesce(${column} ->> ${keyParam}, ${p.add(BREAKDOWN_NULL)}::text)`;
}

/** A group's properties for the event's group of that type (a scalar subquery on the group's key). */
function groupPropertiesSql(index: number, ctx: SqlContext, p: SqlParams): string {
  return `(SELECT g.properties FROM "group" g WHERE g.project_id = e.project_id AND g.group_type_index = ${p.add(index)}
    AND g.group_key = ${groupKeySql(index, ctx, p)})`;
}
