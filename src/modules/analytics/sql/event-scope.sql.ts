import type { CohortDefinition } from '../../events/property-filter-sql';
import type { PropertyNode } from '../../../kernel/property-filters';
import { ActionColumns, actionSql } from '../../actions/action-sql';
import { chChainDialect } from '../clickhouse/chain-dialect.ch';
import { needsPerson, propertyFiltersToClickHouse } from '../clickhouse/property-filter.ch';
import { ActionMatcher, actionFilterTrees } from '../../actions/action-matcher';
import { ChParams, ChSql } from '../engine/ch-sql';
import { HOT_EVENT_PROPERTIES, hotEventColumns } from '../engine/schema/hot-properties';
import { BREAKDOWN_NULL, DateRange, InsightQuery, Interval, isSubDay, Series } from '../model/insight-query';

/**
 * The pieces every analytic query shares, as ClickHouse SQL: which events (project, range, series,
 * filters), who their actor is, and which bucket they fall in. Every value is bound; only trusted SQL
 * text is concatenated.
 *
 * The actor of an event is the person owning its distinct id now: the owner written on the event when it
 * was copied, unless the distinct id has an override (it changed owner since: a merge, a delete). So a
 * merged person's events count once, for the survivor, without joining every distinct id.
 */

/** What the SQL needs beyond the query: loaded cohorts, group type names, the project's test filters. */
export interface SqlContext {
  projectId: number;
  cohorts: ReadonlyMap<number, CohortDefinition>;
  /** group_type_index → group type name (the key under `$groups` on events). */
  groupTypes: ReadonlyMap<number, string>;
  testAccountFilters: PropertyNode | null;
  now: Date;
  /**
   * Whether the copy holds any override for the project (a distinct id whose events were copied under another owner
   * than it has now, after a merge). Without one every event's own person is its person now, and no read joins the
   * overrides: the join reads and hashes every event's distinct id, about 0.17 s of a 0.45 s trend at 10 M events.
   */
  hasOverrides: boolean;
}

export type BuiltSql = ChSql;

/** The person owning the event's distinct id now (0 when none): its override's, else the one the event was copied with. */
export function personIdSql(ctx: SqlContext): string {
  return ctx.hasOverrides ? `if(o.distinct_id = '', e.person_id, o.person_id)` : 'e.person_id';
}

/** The same, NULL when there is none: an event without a person has no actor. */
export function personActorSql(ctx: SqlContext): string {
  return `nullIf(${personIdSql(ctx)}, 0)`;
}

/** Which joins a query's events need: the event's person now (its overrides), the person's properties, groups' properties. */
export interface JoinNeeds {
  /** The event's person is read: as the actor, or by person and cohort filters (see {@link filterSql}). */
  actor: boolean;
  /**
   * The person-property keys a breakdown reads, by the breakdown's position (null: not a person property): the only
   * person properties read beside each event, joined when there is one.
   */
  personBreakdown: Array<string | null>;
  /** Group type indexes whose group properties are read. */
  groups?: number[];
}

/** `events AS e` with the joins a query needs, each restricted to the project. */
export function eventsFrom(needs: JoinNeeds, ctx: SqlContext, p: ChParams): string {
  const team = p.add(ctx.projectId, 'Int64');
  let from = 'events AS e';
  const breakdownColumns = personBreakdownColumns(needs.personBreakdown, p);
  if ((needs.actor || breakdownColumns.length > 0) && ctx.hasOverrides) {
    from += ` LEFT JOIN (SELECT distinct_id, argMax(person_id, version) AS person_id FROM person_distinct_id_overrides
      WHERE team_id = ${team} GROUP BY distinct_id) AS o ON o.distinct_id = e.distinct_id`;
  }
  if (breakdownColumns.length > 0) from += ` LEFT JOIN ${currentPersonsSql(team, breakdownColumns)} AS pp ON pp.id = ${personIdSql(ctx)}`;
  for (const index of needs.groups ?? []) {
    from += ` LEFT JOIN (SELECT group_key, argMax(properties, version) AS properties FROM groups
      WHERE team_id = ${team} AND group_type_index = ${p.add(index, 'UInt8')} GROUP BY group_key HAVING argMax(is_deleted, version) = 0)
      AS g${index} ON g${index}.group_key = ${groupKeySql(index, ctx, p)}`;
  }
  return from;
}

/**
 * Each live person's newest row (`id` and `columns`, SQL over the person table's columns) as a subquery; `team` is
 * the bound project id. The copy keeps a person's versions (a ReplacingMergeTree by version) until merges drop the
 * older ones; FINAL reads the newest of each by merging the sorted parts, which at 1 M persons took 65 ms where
 * grouping by id with argMax took 145 ms. Its WHERE applies to the newest row, so a person deleted last is gone.
 */
export function currentPersonsSql(team: string, columns: string[]): string {
  return `(SELECT id, ${columns.join(', ')} FROM person FINAL WHERE team_id = ${team} AND is_deleted = 0)`;
}

/**
 * A breakdown's person-property values, read once per person (`breakdown_<position>`, NULL when absent) rather than
 * parsed out of each event's person for every event: a person-property breakdown at 10 M events read 1.2 s
 * extracting per event and 0.6 s extracting per person.
 */
export function personBreakdownColumns(keys: Array<string | null>, p: ChParams): string[] {
  return keys.flatMap((key, position) => (key === null ? [] : [`${propertyTextSql('properties', p.add(key, 'String'))} AS breakdown_${position}`]));
}

/** The person-property keys of a query's breakdown, by position (see {@link JoinNeeds}). */
export function personBreakdownKeys(query: InsightQuery): Array<string | null> {
  return query.breakdown?.kind === 'property' ? query.breakdown.properties.map((b) => (b.type === 'person' ? b.key : null)) : [];
}

/** The group key of an event for a group type index; NULL when the type is unknown here. */
export function groupKeySql(index: number, ctx: SqlContext, p: ChParams): string {
  const name = ctx.groupTypes.get(index);
  if (name === undefined) return 'CAST(NULL AS Nullable(String))';
  return `nullIf(JSONExtractString(e.properties, '$groups', ${p.add(name, 'String')}), '')`;
}

/**
 * The actor an event counts for: its person (see above), or a group key when aggregating by groups.
 * Events of distinct ids without a person have no actor (NULL).
 */
export function actorSql(query: InsightQuery, ctx: SqlContext, p: ChParams): string {
  return query.aggregationGroupTypeIndex === null ? personActorSql(ctx) : groupKeySql(query.aggregationGroupTypeIndex, ctx, p);
}

function usesPersonActor(query: InsightQuery): boolean {
  return query.aggregationGroupTypeIndex === null;
}

/** The event time in the project's zone. */
function localTimeSql(zoneParam: string, column = 'e.timestamp'): string {
  return `toTimeZone(${column}, ${zoneParam})`;
}

/**
 * The bucket start of an event in the project's zone, as a local DateTime (weeks from Sunday or Monday).
 * Day, week and month starts are dates; they are read as midnight in the zone.
 */
export function bucketSql(interval: Interval, weekStartDay: 0 | 1, zoneParam: string, column = 'e.timestamp'): string {
  if (interval === 'day') return `toStartOfDay(${localTimeSql(zoneParam, column)})`;
  return bucketOfKeySql(interval, bucketKeySql(interval, weekStartDay, zoneParam, column), zoneParam);
}

/**
 * An event's bucket as its smallest value, for reads that gather many per actor: a Date for day, week and month
 * (two bytes), the minute's or hour's start for those. {@link bucketOfKeySql} turns one into {@link bucketSql}'s DateTime.
 */
export function bucketKeySql(interval: Interval, weekStartDay: 0 | 1, zoneParam: string, column = 'e.timestamp'): string {
  const local = localTimeSql(zoneParam, column);
  if (interval === 'minute') return `toStartOfMinute(${local})`;
  if (interval === 'hour') return `toStartOfHour(${local})`;
  if (interval === 'day') return `toDate(${local})`;
  return interval === 'week' ? `toStartOfWeek(${local}, ${weekStartDay === 1 ? 1 : 0})` : `toStartOfMonth(${local})`;
}

/** A {@link bucketKeySql} value as the bucket's local DateTime (midnight in the zone for a date, as toStartOfDay gives). */
export function bucketOfKeySql(interval: Interval, key: string, zoneParam: string): string {
  return isSubDay(interval) ? key : `toDateTime(${key}, ${zoneParam})`;
}

/** A local bucket start as `YYYY-MM-DDTHH:MM:SS` (the wall time, as the presenters key buckets). */
export function bucketTextSql(bucket: string): string {
  return `formatDateTime(${bucket}, '%Y-%m-%dT%H:%i:%S')`;
}

/** A local wall time (`YYYY-MM-DDTHH:MM:SS`) as a DateTime in the project's zone, comparable with bucketSql. */
export function localTimestamp(key: string, zoneParam: string, p: ChParams): string {
  return `toDateTime(${p.add(key.replace('T', ' '), 'String')}, ${zoneParam})`;
}

/** An instant as a bound UTC DateTime64. */
export function instantSql(at: { toUTC(): { toFormat(f: string): string } }, p: ChParams): string {
  return p.add(at.toUTC().toFormat('yyyy-MM-dd HH:mm:ss.SSS000'), "DateTime64(6, 'UTC')");
}

/**
 * Person, event or group property filters read against this query's joins. Person properties and cohorts are read
 * per person, as the event's person being one of the persons a part of the tree holds for: no join to each event's
 * person properties, which at 10 M events cost more than the rest of a person-filtered trend.
 */
export function filterSql(node: PropertyNode | null, ctx: SqlContext, p: ChParams): string {
  const personId = personIdSql(ctx);
  return propertyFiltersToClickHouse(node, {
    teamId: ctx.projectId,
    columns: { event: 'e.properties' },
    eventHotColumns: hotEventColumns('e.'),
    personSet: { personId, persons: currentPersonsSql(p.add(ctx.projectId, 'Int64'), ['properties']) },
    groupColumn: (index: number) => `g${index}.properties`,
    personId,
    elementsChain: 'e.elements_chain',
    sessionId: `e.${HOT_EVENT_PROPERTIES.get('$session_id')}`,
    now: ctx.now,
    cohorts: ctx.cohorts,
    // PostHog's insights compare `exact` case-sensitively; only its flags ignore case.
    caseSensitiveExact: true,
  }, p);
}

/** Group type indexes a filter tree reads. */
function groupIndexesOf(node: PropertyNode | null, into: Set<number>): void {
  if (!node) return;
  if (node.kind === 'group') node.children.forEach((child) => groupIndexesOf(child, into));
  else if (node.type === 'group' && node.groupTypeIndex !== undefined) into.add(node.groupTypeIndex);
}

/**
 * The joins a query's SQL needs: the event's person when it is the actor, or when its filters, the project's
 * test-account filters, the given entity filters (series, steps, exclusions, retention entities) or a cohort
 * breakdown read persons or cohorts; person properties for a breakdown by one; group properties for each group type
 * they read.
 */
export function joinNeeds(query: InsightQuery, ctx: SqlContext, entityTrees: Array<PropertyNode | null>, actor: boolean): JoinNeeds {
  const breakdown = query.breakdown;
  const trees = [query.properties, query.filterTestAccounts ? ctx.testAccountFilters : null, ...entityTrees];
  const readsPersons = breakdown?.kind === 'cohort' || trees.some(needsPerson);
  const groups = new Set<number>();
  trees.forEach((tree) => groupIndexesOf(tree, groups));
  if (breakdown?.kind === 'property') breakdown.properties.forEach((b) => b.type === 'group' && groups.add(b.groupTypeIndex ?? 0));
  return { actor: (actor && usesPersonActor(query)) || readsPersons, personBreakdown: personBreakdownKeys(query), groups: [...groups].sort() };
}

/** The conditions every analytic read shares: project, time range, the query's filters and the test-account filters. */
export function scopeWhere(query: InsightQuery, range: DateRange, ctx: SqlContext, p: ChParams): string[] {
  return [...filtersWhere(query, ctx, p), `e.timestamp >= ${instantSql(range.from, p)}`, `e.timestamp <= ${instantSql(range.to, p)}`];
}

/** {@link scopeWhere} without the time range, for reads whose bounds differ per part (retention's first-time cohorts). */
export function filtersWhere(query: InsightQuery, ctx: SqlContext, p: ChParams): string[] {
  return [`e.team_id = ${p.add(ctx.projectId, 'Int64')}`, ...queryFiltersWhere(query, ctx, p)];
}

/** The query's own property filters and the test-account filters. */
export function queryFiltersWhere(query: InsightQuery, ctx: SqlContext, p: ChParams): string[] {
  const where: string[] = [];
  if (query.properties) where.push(filterSql(query.properties, ctx, p));
  if (query.filterTestAccounts && ctx.testAccountFilters) where.push(filterSql(ctx.testAccountFilters, ctx, p));
  return where;
}

/** What selects an entity's events: an event name (any when null) or an action, and the entity's own filters. */
export interface EntityRef {
  event: string | null;
  action?: ActionMatcher | null;
  properties: PropertyNode | null;
}

/** The conditions of one entity's events (a series, a funnel step or exclusion, a retention entity). */
export function entityWhere(entity: EntityRef, ctx: SqlContext, p: ChParams): string[] {
  const where: string[] = [];
  if (entity.event !== null) where.push(`e.event = ${p.add(entity.event, 'String')}`);
  if (entity.action) where.push(actionSql(entity.action, actionColumns(ctx, p), chChainDialect(p)));
  if (entity.properties) where.push(filterSql(entity.properties, ctx, p));
  return where;
}

/** The columns of `e` an action's steps read. */
function actionColumns(ctx: SqlContext, p: ChParams): ActionColumns {
  return {
    event: 'e.event',
    currentUrl: `ifNull(e.${HOT_EVENT_PROPERTIES.get('$current_url')}, '')`,
    elementsChain: 'e.elements_chain',
    filter: (node) => filterSql(node, ctx, p),
  };
}

/** The property filters an entity reads (its own and its action's steps'), for the joins they need. */
export function entityFilters(entity: EntityRef): Array<PropertyNode | null> {
  return [entity.properties, ...actionFilterTrees(entity.action)];
}

/** The event's actor is a member of a cohort. */
export function cohortMemberSql(cohort: number, ctx: SqlContext, p: ChParams): string {
  return filterSql({ kind: 'leaf', key: 'id', value: cohort, operator: 'exact', type: 'cohort', negation: false }, ctx, p);
}

/** The conditions of one series' events in a range: the shared scope and the series' own event and filters. */
export function seriesWhere(query: InsightQuery, series: Series, range: DateRange, ctx: SqlContext, p: ChParams): string[] {
  return [...scopeWhere(query, range, ctx, p), ...entityWhere(series, ctx, p)];
}

/** An event's instant in ms, its µs kept as the fraction: how actor sequences, and what is compared with them, read it. */
export const EVENT_INSTANT_MS = 'toUnixTimestamp64Micro(e.timestamp) / 1000';

/**
 * One row per actor: `times` (ms, ascending) and each column as an array in the same order, plus any per-actor
 * aggregates (SQL over the columns' per-event values `column_<name>`, `at`, and `event_order`: time then UUID text
 * as one number, which an aggregate compares much faster than the tuple of both). Events at one instant are
 * ordered as `ties` says: by UUID text (paths, whose items follow one another), by a column's value (a strict
 * funnel's steps: events alike in time and steps are alike to the funnel), or in any order (only instants count).
 */
export function actorSequencesSql(actor: string, columns: SequenceColumn[], from: string, where: string[], options: SequenceOptions = {}): string {
  const { ties = 'uuid', perActor = [], actorId = false } = options;
  const inner = columns.map(({ name, sql }) => `, ${sql} AS column_${name}`).join('');
  const gathered = columns.filter((c) => !c.perEventOnly);
  const packable = gathered.length === 1 && (gathered[0].bits ?? Infinity) <= PACKED_BITS && (ties === 'any' || (ties !== 'uuid' && ties.column === gathered[0].name));
  const arrays = packable ? packed(gathered[0]) : ties === 'any' ? byTime(gathered) : byTimeThen(ties === 'uuid' ? 'tiebreak' : `column_${ties.column}`, gathered);
  const aggregates = perActor.map(({ name, sql }) => `, ${sql} AS ${name}`).join('');
  return `SELECT toString(sequence_actor) AS actor${actorId ? ', sequence_actor AS actor_id' : ''}, ${arrays}${aggregates} FROM (
      SELECT ${actor} AS sequence_actor, reinterpretAsUInt128(reverse(UUIDToNum(e.uuid))) AS tiebreak, toUnixTimestamp64Micro(e.timestamp) AS micros, ${EVENT_INSTANT_MS} AS at,
          bitShiftLeft(toInt256(micros), 128) + toInt256(tiebreak) AS event_order${inner}
        FROM ${from} WHERE ${where.join(' AND ')} AND ${actor} IS NOT NULL) sequence_events
    GROUP BY sequence_actor`;
}

/** The earliest instant a DateTime64 holds (1900-01-01) in µs: instants counted from it are never negative. */
const MICROS_FROM = -2_208_988_800_000_000;
/** Bits left beside an instant in 64 bits: µs from 1900 to 2299, the DateTime64 range, take 54. */
const PACKED_BITS = 8;

/**
 * One small unsigned column packed with the instant into one 64-bit number per event (µs since 1900, then the
 * column's bits): one array sorted once as plain numbers, by time, then by the column. A strict funnel at 10 M
 * events took 3.5 s sorting (time, UUID) and 1.3 s sorting this.
 */
function packed({ name }: SequenceColumn): string {
  const key = `bitOr(bitShiftLeft(toUInt64(micros - ${MICROS_FROM}), ${PACKED_BITS}), column_${name})`;
  return `arrayMap((k) -> (toInt64(bitShiftRight(k, ${PACKED_BITS})) + ${MICROS_FROM}) / 1000, arraySort(groupArray(${key})) AS sequence_packed) AS times,
    arrayMap((k) -> toUInt8(bitAnd(k, ${2 ** PACKED_BITS - 1})), sequence_packed) AS ${name}`;
}

/**
 * Sorted by time alone, each column gathered as an array of its own and sorted by the instants: sorting a tuple
 * takes a generic comparison, 40% slower for a funnel's steps at 10 M events than two sorts keyed on one number.
 * groupArray skips NULLs, so a column that may hold one goes in a tuple of one.
 */
function byTime(columns: SequenceColumn[]): string {
  const sorted = ({ name, nullable }: SequenceColumn) => {
    const array = `arraySort((x, at) -> at, groupArray(${nullable ? `tuple(column_${name})` : `column_${name}`}), groupArray(at))`;
    return `, ${nullable ? `arrayMap((x) -> x.1, ${array})` : array} AS ${name}`;
  };
  return `arraySort(groupArray(at)) AS times${columns.map(sorted).join('')}`;
}

/**
 * Sorted by time, then by `second` (the UUID, its bytes in text order read as one 128-bit number, which sorts as the
 * text does; or a column): the events gathered as one tuple each and sorted once, since a key of two columns takes
 * the generic comparison anyway and sorting the times and every column apart did it once per array (paths at 10 M
 * events: 2.2 s against 1.6 s).
 */
function byTimeThen(second: string, columns: SequenceColumn[]): string {
  const events = `arraySort(groupArray((at, ${second}${columns.map(({ name }) => `, column_${name}`).join('')}))) AS sequence_sorted`;
  return `arrayMap((x) -> x.1, ${events}) AS times${columns.map(({ name }, i) => `, arrayMap((x) -> x.${i + 3}, sequence_sorted) AS ${name}`).join('')}`;
}

/**
 * Columns computed in stages, each stage a subquery over the one before that reads only the columns before it: an
 * alias used in the same SELECT is expanded where it is used, and a chain of them (a funnel's each step from the one
 * before, `steps` in every later column) grows the query ClickHouse analyses exponentially with its length.
 */
export type Stage = string[];

export function staged(stages: Stage[], from: string): string {
  return stages.reduce((inner, columns) => `SELECT *, ${columns.join(', ')} FROM (${inner})`, from);
}

/** A per-event column of actor sequences: its name in the row, its SQL over `e`, and whether it may be NULL. */
export interface SequenceColumn {
  name: string;
  sql: string;
  nullable?: boolean;
  /** Read by per-actor aggregates only, not gathered as an array. */
  perEventOnly?: boolean;
  /** An unsigned integer of at most this many bits (UInt8 up to 8): small enough to be packed with the instant. */
  bits?: number;
}

export interface SequenceOptions {
  /** How events at one instant are ordered: by UUID text (the default), by a column's value, or in any order. */
  ties?: 'uuid' | 'any' | { column: string };
  /** Per-actor aggregates over the events, as `name` → SQL. */
  perActor?: Array<{ name: string; sql: string }>;
  /** The actor as the events hold it (`actor_id`), beside its text, to join on. */
  actorId?: boolean;
}

/**
 * The value of the breakdown property at `position` on an event, as text; a missing value reads as PostHog's null
 * marker. A person's is read from the persons subquery, which computed it once per person.
 */
export function breakdownPropertySql(key: string, type: 'event' | 'person' | 'group', groupIndex: number | null, position: number, p: ChParams): string {
  const hot = type === 'event' ? HOT_EVENT_PROPERTIES.get(key) : undefined;
  const text = type === 'person' ? `pp.breakdown_${position}` : hot ? `e.${hot}` : propertyTextSql(type === 'group' ? `g${groupIndex ?? 0}.properties` : 'e.properties', p.add(key, 'String'));
  return `ifNull(${text}, ${p.add(BREAKDOWN_NULL, 'String')})`;
}

/** A property's text as `->>` gives it: a string unescaped, other JSON as its text, NULL when absent or JSON null. */
export function propertyTextSql(column: string, keyParam: string): string {
  return `multiIf(JSONType(${column}, ${keyParam}) = 'String', JSONExtractString(${column}, ${keyParam}),
    JSONType(${column}, ${keyParam}) = 'Null', NULL, JSONExtractRaw(${column}, ${keyParam}))`;
}
