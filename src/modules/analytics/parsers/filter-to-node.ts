import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import { FilterInput, jsonValue, present } from './filter-values';
import { BREAKDOWN_KEYS, FUNNEL_KEYS, PATHS_KEYS, RETENTION_KEYS } from './query-node.parser';

/**
 * A legacy filter (what a saved insight's `filters` hold) as the insight node that asks the same question, as PostHog
 * converts them when it reads an insight
 * (https://github.com/PostHog/posthog/blob/master/posthog/hogql_queries/legacy_compatibility/filter_to_query.py). The
 * key names are those nodeToFilter translates back, so a filter read through its node parses to the same question.
 */

type Json = Record<string, unknown>;

/** `filters.insight` values and the node kind each stands for. */
export const LEGACY_INSIGHT_NODES: Readonly<Record<string, string>> = {
  TRENDS: 'TrendsQuery', STICKINESS: 'StickinessQuery', LIFECYCLE: 'LifecycleQuery', FUNNELS: 'FunnelsQuery', RETENTION: 'RetentionQuery', PATHS: 'PathsQuery',
};
/** What `filters.insight` may say (any case), and the older `shown_as` of a trend. */
export const FILTER_INSIGHTS = Object.keys(LEGACY_INSIGHT_NODES);
const SHOWN_AS: Readonly<Record<string, string>> = { stickiness: 'STICKINESS', lifecycle: 'LIFECYCLE' };

/** Keys whose values are lists or objects: a filter saved from a query string holds them as JSON text. */
const JSON_KEYS = new Set([
  'events', 'actions', 'properties', 'exclusions', 'breakdowns', 'target_entity', 'returning_entity', 'funnel_filter', 'formulas', 'path_groupings',
  'include_event_types', 'include_custom_events', 'exclude_events', 'local_path_cleaning_filters',
]);

/** `key`'s value, JSON text read as JSON where the key holds a list or an object; other values as they are. */
function valueOf(filters: FilterInput, key: string): unknown {
  if (!present(filters, key)) return undefined;
  return JSON_KEYS.has(key) ? jsonValue(filters, key) : filters[key];
}

/** The keys of `filters` that are set, under the node's names (`names` maps node name → legacy name). */
function nodeKeys(filters: FilterInput, names: Readonly<Record<string, string>>): Json {
  const node: Json = {};
  for (const [nodeName, legacy] of Object.entries(names)) {
    const value = valueOf(filters, legacy);
    if (value !== undefined && value !== null) node[nodeName] = value;
  }
  return node;
}

function listOf(filters: FilterInput, key: string): Json[] {
  const value = valueOf(filters, key);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isJsonObject)) throw ApiError.validation(`filters.${key} must be a list of objects.`, 'filters');
  return value;
}

/** A legacy entity as an EventsNode or ActionsNode, with what a series carries. */
function entityNode(entity: Json): Json {
  const action = entity.type === 'actions';
  const node: Json = action ? { kind: 'ActionsNode', id: entity.id } : { kind: 'EventsNode', event: entity.id ?? null };
  for (const key of ['name', 'custom_name', 'math', 'math_property', 'math_group_type_index', 'properties']) if (entity[key] !== undefined && entity[key] !== null) node[key] = entity[key];
  return node;
}

/** `events` and `actions` in one list, by their `order`, as the legacy parser sorts them. */
function seriesOf(filters: FilterInput): Json[] {
  const entities = [...listOf(filters, 'events').map((e) => ({ ...e, type: 'events' })), ...listOf(filters, 'actions').map((e) => ({ ...e, type: 'actions' }))];
  const order = (e: Json) => (typeof e.order === 'number' ? e.order : Number.MAX_SAFE_INTEGER);
  return entities.map((e, i) => ({ e, i })).sort((a, b) => order(a.e) - order(b.e) || a.i - b.i).map(({ e }) => entityNode(e));
}

function insightOf(filters: FilterInput): string {
  const insight = valueOf(filters, 'insight');
  const shownAs = valueOf(filters, 'shown_as');
  const named = typeof insight === 'string' ? insight.toUpperCase() : typeof shownAs === 'string' ? (SHOWN_AS[shownAs.toLowerCase()] ?? 'TRENDS') : 'TRENDS';
  if (!Object.hasOwn(LEGACY_INSIGHT_NODES, named)) throw ApiError.validation(`filters.insight "${String(insight)}" is not an insight: use one of ${FILTER_INSIGHTS.join(', ')}.`, 'filters');
  return named;
}

/** What every node reads: its date range, filters and aggregation. */
function commonNode(filters: FilterInput): Json {
  const node: Json = {};
  const dateRange = nodeKeys(filters, { date_from: 'date_from', date_to: 'date_to' });
  if (valueOf(filters, 'explicit_date') === true || valueOf(filters, 'explicit_date') === 'true') dateRange.explicitDate = true;
  if (Object.keys(dateRange).length > 0) node.dateRange = dateRange;
  const properties = valueOf(filters, 'properties');
  if (properties !== undefined && properties !== null) node.properties = properties;
  const testAccounts = valueOf(filters, 'filter_test_accounts');
  if (testAccounts === true || testAccounts === 'true') node.filterTestAccounts = true;
  const group = valueOf(filters, 'aggregation_group_type_index');
  if (group !== undefined && group !== null) node.aggregation_group_type_index = group;
  return node;
}

function breakdownNode(filters: FilterInput): Json | undefined {
  const filter = nodeKeys(filters, Object.fromEntries(BREAKDOWN_KEYS.map((key) => [key, key])));
  return Object.keys(filter).length > 0 ? filter : undefined;
}

function withBreakdown(node: Json, filters: FilterInput): Json {
  const breakdown = breakdownNode(filters);
  return breakdown ? { ...node, breakdownFilter: breakdown } : node;
}

function trendsNode(filters: FilterInput, kind: string): Json {
  const node: Json = { kind, series: seriesOf(filters), ...commonNode(filters), ...nodeKeys(filters, { interval: 'interval' }) };
  if (kind === 'LifecycleQuery') return node;
  const display = nodeKeys(filters, { display: 'display' });
  if (kind === 'StickinessQuery') return Object.keys(display).length ? { ...node, stickinessFilter: display } : node;
  const trendsFilter = { ...display, ...nodeKeys(filters, { formula: 'formula', formulas: 'formulas', smoothingIntervals: 'smoothing_intervals' }) };
  const compare = nodeKeys(filters, { compare: 'compare', compare_to: 'compare_to' });
  const sampling = nodeKeys(filters, { samplingFactor: 'sampling_factor' });
  return withBreakdown({ ...node, ...sampling, ...(Object.keys(trendsFilter).length ? { trendsFilter } : {}), ...(Object.keys(compare).length ? { compareFilter: compare } : {}) }, filters);
}

function funnelsNode(filters: FilterInput): Json {
  const funnelsFilter = nodeKeys(filters, FUNNEL_KEYS);
  const exclusions = listOf(filters, 'exclusions');
  if (exclusions.length > 0) {
    funnelsFilter.exclusions = exclusions.map((e) => ({ ...entityNode(e), funnelFromStep: e.funnel_from_step, funnelToStep: e.funnel_to_step }));
  }
  const node: Json = { kind: 'FunnelsQuery', series: seriesOf(filters), ...commonNode(filters), ...nodeKeys(filters, { interval: 'interval' }) };
  return withBreakdown(Object.keys(funnelsFilter).length ? { ...node, funnelsFilter } : node, filters);
}

function retentionNode(filters: FilterInput): Json {
  const retentionFilter = nodeKeys(filters, RETENTION_KEYS);
  for (const [nodeName, legacy] of [['targetEntity', 'target_entity'], ['returningEntity', 'returning_entity']]) {
    const entity = valueOf(filters, legacy);
    if (entity !== undefined && entity !== null) retentionFilter[nodeName] = entity;
  }
  return withBreakdown({ kind: 'RetentionQuery', ...commonNode(filters), retentionFilter }, filters);
}

function pathsNode(filters: FilterInput): Json {
  const node: Json = { kind: 'PathsQuery', ...commonNode(filters), pathsFilter: nodeKeys(filters, PATHS_KEYS) };
  const funnelPaths = valueOf(filters, 'funnel_paths');
  const funnel = valueOf(filters, 'funnel_filter');
  if (typeof funnelPaths === 'string' && isJsonObject(funnel)) {
    node.funnelPathsFilter = { funnelPathType: funnelPaths, funnelStep: funnel.funnel_step, funnelSource: funnelsNode(funnel) };
  }
  return node;
}

/** The insight node (TrendsQuery, FunnelsQuery, …) a legacy filter stands for. */
export function filterToNode(filters: FilterInput): Json {
  const insight = insightOf(filters);
  if (insight === 'FUNNELS') return funnelsNode(filters);
  if (insight === 'RETENTION') return retentionNode(filters);
  if (insight === 'PATHS') return pathsNode(filters);
  return trendsNode(filters, LEGACY_INSIGHT_NODES[insight]);
}
