import { ChParams } from '../engine/ch-sql';
import { HOT_EVENT_PROPERTIES } from '../engine/schema/hot-properties';
import type { InsightQuery, PathActorsSelection, PathOptions } from '../model/insight-query';
import { actorSequencesSql, actorSql, BuiltSql, eventsFrom, joinNeeds, scopeWhere, SqlContext, staged } from './event-scope.sql';
import { funnelSpansSubquery } from './funnel.sql';

/**
 * Paths, PostHog's way, built inside ClickHouse from each actor's events in time order, so only edges (or one page of
 * actors) leave the engine. Each event's path item (a page view's URL without one trailing slash, a screen's name,
 * or the event's name) is cleaned by the rules in order (each regex's matches replaced by its alias, taken
 * literally), replaced by the first grouping pattern it matches (`*` matches anything), and dropped when excluded.
 * An actor's remaining events split into sessions at gaps of 30 minutes or more; repeats in a row collapse into
 * their last one. A start point cuts a session to begin at its first occurrence (sessions without it are dropped);
 * an end point cuts it to end at its first occurrence after that and keeps the first `stepLimit` items from a start
 * point, else the last; otherwise the first `stepLimit` items are kept. Item i of a path has the key `i_item`.
 */

/** What building paths reads of a paths query. */
export type PathSpec = Pick<PathOptions, 'cleaningRules' | 'groupings' | 'excludeEvents' | 'startPoint' | 'endPoint' | 'stepLimit'>;

const SESSION_GAP_MS = 30 * 60 * 1000;

/** An event's path item from its raw item, cleaned and grouped (excluded items are the caller's to drop). */
export function pathItemSql(raw: string, spec: PathSpec, p: ChParams): string {
  const cleaned = spec.cleaningRules.reduce((sql, rule) => {
    const { regex, replacement } = literalReplacement(rule);
    return `replaceRegexpAll(${sql}, ${p.add(regex, 'String')}, ${p.add(replacement, 'String')})`;
  }, raw);
  if (spec.groupings.length === 0) return cleaned;
  const groups = spec.groupings.map((pattern, i) => `match(${i === 0 ? `(${cleaned}) AS path_cleaned` : 'path_cleaned'}, ${p.add(wildcardRegex(pattern), 'String')}), ${p.add(pattern, 'String')}`);
  return `multiIf(${groups.join(', ')}, path_cleaned)`;
}

/**
 * A cleaning rule for `replaceRegexpAll` with its alias taken literally: ClickHouse reads `\N` in a replacement as
 * capture group N and `\\` as one backslash, so backslashes are doubled. It also refuses a replacement whose `\N`
 * names a group the regex lacks, escaped or not, so a regex whose alias holds a backslash before a digit is
 * wrapped in nine groups (which change nothing it matches).
 */
function literalReplacement(rule: { regex: string; alias: string }): { regex: string; replacement: string } {
  const regex = /\\\d/.test(rule.alias) ? `${'('.repeat(9)}${rule.regex}${')'.repeat(9)}` : rule.regex;
  return { regex, replacement: rule.alias.replace(/\\/g, '\\\\') };
}

/** A grouping pattern as an RE2 regex over the whole item: `*` as anything (newlines too), the rest literal. */
export function wildcardRegex(pattern: string): string {
  return `(?s)^${pattern.split('*').map((part) => part.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&')).join('.*')}$`;
}

/**
 * Each actor's sessions as paths, one row each: `path` (items), `path_times` (their instants, ms) and `keys`.
 * `sequences` gives each actor's items and instants in time order (`actor`, `times`, `items`, and `actor_id`).
 */
export function sessionPathsSql(spec: PathSpec, sequences: string, p: ChParams): string {
  const sessions = `SELECT actor, actor_id, session_items, session_times FROM (
      SELECT *, arrayMap((t, previous) -> t - previous >= ${SESSION_GAP_MS}, times, arrayPushFront(arrayPopBack(times), times[1])) AS gaps FROM (${sequences}))
    ARRAY JOIN arraySplit((x, g) -> g, items, gaps) AS session_items, arraySplit((x, g) -> g, times, gaps) AS session_times`;
  const start = spec.startPoint === null ? '1' : `indexOf(visited, ${p.add(spec.startPoint, 'String')})`;
  const limit = p.add(spec.stepLimit, 'Int64');
  const cut = spec.endPoint === null
    ? [[`${start} AS cut_offset`], [`if(cut_offset = 0, 0, ${limit}) AS cut_length`]]
    : [
      [`${start} AS cut_start`],
      [`indexOf(arraySlice(visited, cut_start), ${p.add(spec.endPoint, 'String')}) AS end_offset`],
      [spec.startPoint === null ? `greatest(1, end_offset - ${limit} + 1) AS cut_offset` : 'cut_start AS cut_offset'],
      [`if(cut_start = 0 OR end_offset = 0, 0, ${spec.startPoint === null ? 'cut_start + end_offset - cut_offset' : `least(end_offset, ${limit})`}) AS cut_length`],
    ];
  const paths = staged([
    ['length(session_items) AS session_length'],
    // The last of each run of one item, with its instant.
    ['arrayMap((x, next, i) -> i = session_length OR x != next, session_items, arrayShiftLeft(session_items, 1), arrayEnumerate(session_items)) AS last_of_run'],
    ['arrayFilter((x, k) -> k, session_items, last_of_run) AS visited', 'arrayFilter((t, k) -> k, session_times, last_of_run) AS visited_times'],
    ...cut,
    ['arraySlice(visited, cut_offset, cut_length) AS path', 'arraySlice(visited_times, cut_offset, cut_length) AS path_times'],
    ["arrayMap((x, i) -> concat(toString(i), '_', x), path, arrayEnumerate(path)) AS keys"],
  ], sessions);
  return `SELECT * FROM (${paths}) WHERE cut_length > 0`;
}

/**
 * Edges counted over every path (an actor's several sessions each count), with the sum of their ms: the heaviest
 * (ties by source, then target, in byte order) within the weight bounds, at most `limit`.
 */
export function edgesSql(paths: string, bounds: Pick<PathOptions, 'edgeLimit' | 'minEdgeWeight' | 'maxEdgeWeight'>, p: ChParams): string {
  const having = [
    ...(bounds.minEdgeWeight === null ? [] : [`value >= ${p.add(bounds.minEdgeWeight, 'Int64')}`]),
    ...(bounds.maxEdgeWeight === null ? [] : [`value <= ${p.add(bounds.maxEdgeWeight, 'Int64')}`]),
  ];
  const edges = 'arrayZip(arrayPopBack(keys), arrayPopFront(keys), arrayMap((a, b) -> b - a, arrayPopBack(path_times), arrayPopFront(path_times)))';
  return `SELECT edge.1 AS source, edge.2 AS target, count() AS value, sum(edge.3) AS total_ms FROM (${paths}) ARRAY JOIN ${edges} AS edge
    GROUP BY source, target${having.length > 0 ? ` HAVING ${having.join(' AND ')}` : ''}
    ORDER BY value DESC, source, target${bounds.edgeLimit === null ? '' : ` LIMIT ${p.add(bounds.edgeLimit, 'Int64')}`}`;
}

/**
 * One row: one page of the actors (in actor order: persons by id, groups by key) with a path that holds the selected
 * keys (a drop-off: its last step; a start and an end: that edge; a start: a step after it; an end: that step), and
 * `seen`, which of the named keys' items (1 start, 2 end, 4 drop-off) any path visits, at whatever step.
 */
export function selectedActorsSql(paths: string, selection: PathActorsSelection, p: ChParams): string {
  const key = (name: 'start' | 'end' | 'dropoff') => p.add(selection[name], 'String');
  const selected = selection.dropoff !== null ? `keys[-1] = ${key('dropoff')}`
    : selection.start !== null && selection.end !== null ? `arrayExists((a, b) -> a = ${key('start')} AND b = ${key('end')}, arrayPopBack(keys), arrayPopFront(keys))`
    : selection.start !== null ? `has(arrayPopBack(keys), ${key('start')})`
    : selection.end !== null ? `has(keys, ${key('end')})` : '1';
  // A key whose item no path visits is a mistake to report; one whose item lies at another step or past the step limit
  // simply has no actors, as PostHog answers it.
  const seen = (['start', 'end', 'dropoff'] as const).map((name, bit) => (selection[name] === null ? '0' : `has(visited, ${p.add(keyItems([selection[name]])[0], 'String')}) * ${2 ** bit}`));
  const page = `arraySlice(arraySort(groupUniqArrayIf(actor_id, ${selected})), ${p.add(selection.offset + 1, 'Int64')}, ${p.add(selection.limit, 'Int64')})`;
  return `SELECT groupBitOr(toUInt8(${seen.join(' + ')})) AS seen, arrayMap((a) -> toString(a), ${page}) AS actors FROM (${paths})`;
}

/** Where a paths query's events come from: SQL over `e` for the actor and each event's raw item (NULL: no item), FROM and WHERE. */
export interface PathEventsInput {
  actor: string;
  raw: string;
  from: string;
  where: string[];
}

/**
 * Each actor's path items and their instants in time order (`actor`, `actor_id`, `times`, `items`); with `holding`,
 * only actors with an event of one of those items. A persons request names keys, and a path can hold a key only if
 * its actor has an event of that key's item: gathering only those actors' events spares gathering everyone's.
 */
export function pathEventsSql(spec: PathSpec, input: PathEventsInput, p: ChParams, holding: string[] = []): string {
  // Items without a value (a page view without a URL) and excluded ones are no path events at all.
  const item = pathItemSql(input.raw, spec, p);
  const where = [...input.where];
  // Before the item's conditions: ClickHouse evaluates AND's terms in order, each on the rows the ones before kept.
  if (holding.length > 0) {
    where.push(`sequence_actor IN (SELECT ${input.actor} FROM ${input.from} WHERE ${input.where.join(' AND ')} AND ${item} IN ${p.add(holding, 'Array(String)')})`);
  }
  where.push('path_item IS NOT NULL');
  if (spec.excludeEvents.length > 0) where.push(`path_item NOT IN ${p.add(spec.excludeEvents, 'Array(String)')}`);
  return actorSequencesSql(input.actor, [{ name: 'items', sql: `assumeNotNull(${item} AS path_item)` }], input.from, where, { actorId: true });
}

/** The items of path keys (`2_/pricing` holds `/pricing`). */
export function keyItems(keys: Array<string | null>): string[] {
  return keys.filter((key): key is string => key !== null).map((key) => key.slice(key.indexOf('_') + 1));
}

/** A paths query's actors with their items and instants in time order, cut to their funnel span for funnel paths. */
function pathSequencesSql(query: InsightQuery, ctx: SqlContext, p: ChParams, holding: string[] = []): string {
  const options = query.paths!;
  const kinds: string[] = [];
  if (options.eventTypes.includes('$pageview')) kinds.push(`e.event = '$pageview'`);
  if (options.eventTypes.includes('$screen')) kinds.push(`e.event = '$screen'`);
  if (options.eventTypes.includes('custom_event')) kinds.push(`NOT startsWith(e.event, '$')`);
  if (options.customEvents.length > 0) kinds.push(`e.event IN ${p.add(options.customEvents, 'Array(String)')}`);
  const url = `e.${HOT_EVENT_PROPERTIES.get('$current_url')}`;
  const screen = `e.${HOT_EVENT_PROPERTIES.get('$screen_name')}`;
  // One trailing slash goes, as PostHog's `(.)/$` replacement removes it; the regex runs only on the URLs it can change
  // (a persons request's actors: 0.6 s against 0.45 s to find them among 4 M page views).
  const trimmed = `if(endsWith(${url}, '/'), replaceRegexpOne(${url}, '(.)/$', '\\\\1'), ${url})`;
  const sequences = pathEventsSql(options, {
    actor: actorSql(query, ctx, p),
    raw: `multiIf(e.event = '$pageview', ${trimmed}, e.event = '$screen', ${screen}, e.event)`,
    from: eventsFrom(joinNeeds(query, ctx, [], true), ctx, p),
    where: [...scopeWhere(query, query.range, ctx, p), `(${kinds.join(' OR ')})`],
  }, p, holding);
  if (!options.funnel) return sequences;
  const within = (array: string) => `arrayFilter((x, t) -> t >= f.span_from AND t <= f.span_to, ${array}, s.times)`;
  return `SELECT s.actor AS actor, s.actor_id AS actor_id, ${within('s.times')} AS times, ${within('s.items')} AS items
    FROM (${sequences}) AS s INNER JOIN (${funnelSpansSubquery(options.funnel.query, options.funnel, ctx, p)}) AS f ON f.actor = s.actor
    WHERE length(times) > 0`;
}

/** A paths insight's edges (`source`, `target`, `value`, `total_ms`), heaviest first. */
export function pathEdgesSql(query: InsightQuery, ctx: SqlContext): BuiltSql {
  const p = new ChParams();
  return p.sql(edgesSql(sessionPathsSql(query.paths!, pathSequencesSql(query, ctx, p), p), query.paths!, p));
}

/** One page of the actors whose paths hold the selected keys, and which keys any path holds. */
export function pathActorsSql(query: InsightQuery, ctx: SqlContext, selection: PathActorsSelection): BuiltSql {
  const p = new ChParams();
  const sequences = pathSequencesSql(query, ctx, p, keyItems([selection.start, selection.end, selection.dropoff]));
  return p.sql(selectedActorsSql(sessionPathsSql(query.paths!, sequences, p), selection, p));
}
