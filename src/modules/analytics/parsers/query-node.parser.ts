import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import type { InsightKind } from '../model/insight-query';
import type { FilterInput } from './filter-values';

/**
 * The query API's insight nodes (`TrendsQuery`, `StickinessQuery`, `LifecycleQuery`) translated into the
 * legacy filter they are equivalent to, so both doors parse into the same model through one parser and
 * give the same numbers. Only the node's shape is checked here; values are checked by that parser.
 */

export const INSIGHT_NODES: Record<string, InsightKind> = { TrendsQuery: 'trends', StickinessQuery: 'stickiness', LifecycleQuery: 'lifecycle', FunnelsQuery: 'funnels', RetentionQuery: 'retention', PathsQuery: 'paths' };

type Json = Record<string, unknown>;

function objectField(node: Json, key: string): Json {
  const value = node[key];
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) throw ApiError.validation(`${key} must be an object.`, key);
  return value;
}

/** The keys of `filter` that are set, under their legacy names. */
function renamed(filter: Json, names: Record<string, string>): FilterInput {
  const input: FilterInput = {};
  for (const [key, legacy] of Object.entries(names)) if (filter[key] !== undefined && filter[key] !== null) input[legacy] = filter[key];
  return input;
}

/** What every insight node shares: its filters, group aggregation and date range. */
function commonInput(node: Json): FilterInput {
  const dateRange = objectField(node, 'dateRange');
  return {
    properties: node.properties ?? [],
    filter_test_accounts: node.filterTestAccounts === true,
    ...(node.aggregation_group_type_index !== undefined ? { aggregation_group_type_index: node.aggregation_group_type_index } : {}),
    ...renamed(dateRange, { date_from: 'date_from', date_to: 'date_to' }),
  };
}

/** The node's options this service does not compute, under their legacy names, for the legacy parser to refuse. */
function unsupportedOptions(node: Json): FilterInput {
  const input: FilterInput = {};
  const compareTo = objectField(node, 'compareFilter').compare_to;
  const smoothing = objectField(node, 'trendsFilter').smoothingIntervals;
  const normalize = objectField(node, 'breakdownFilter').breakdown_normalize_url;
  if (compareTo !== undefined && compareTo !== null) input.compare_to = compareTo;
  if (smoothing !== undefined && smoothing !== null) input.smoothing_intervals = smoothing;
  if (normalize !== undefined && normalize !== null) input.breakdown_normalize_url = normalize;
  if (node.samplingFactor !== undefined && node.samplingFactor !== null) input.sampling_factor = node.samplingFactor;
  return input;
}

/** An EventsNode or ActionsNode as a legacy entity (`type` tells which; an action by its `id`). */
function seriesEntity(raw: unknown, position: number): Json {
  if (!isJsonObject(raw)) throw ApiError.validation(`series[${position}] must be an EventsNode or ActionsNode object.`, 'series');
  if (raw.kind !== undefined && raw.kind !== 'EventsNode' && raw.kind !== 'ActionsNode') {
    throw ApiError.validation(`series[${position}].kind "${String(raw.kind)}" is not supported: use EventsNode or ActionsNode.`, 'series');
  }
  const action = raw.kind === 'ActionsNode';
  return {
    id: action ? raw.id : (raw.event ?? null), type: action ? 'actions' : 'events', name: raw.name, custom_name: raw.custom_name, order: position, math: raw.math,
    math_property: raw.math_property, math_group_type_index: raw.math_group_type_index, properties: raw.properties,
  };
}

/** breakdownFilter's keys: the legacy filter's own names. */
export const BREAKDOWN_KEYS = ['breakdown', 'breakdowns', 'breakdown_type', 'breakdown_limit', 'breakdown_group_type_index', 'breakdown_hide_other_aggregation', 'breakdown_histogram_bin_count'] as const;

function breakdownInput(node: Json): FilterInput {
  const filter = objectField(node, 'breakdownFilter');
  const input: FilterInput = {};
  if (filter.breakdowns !== undefined) input.breakdowns = filter.breakdowns;
  for (const key of BREAKDOWN_KEYS) if (key !== 'breakdowns' && filter[key] !== undefined && filter[key] !== null) input[key] = filter[key];
  return input;
}

/** funnelsFilter's keys (exclusions aside) and their legacy names. */
export const FUNNEL_KEYS: Readonly<Record<string, string>> = {
  funnelOrderType: 'funnel_order_type', funnelVizType: 'funnel_viz_type', funnelWindowInterval: 'funnel_window_interval', funnelWindowIntervalUnit: 'funnel_window_interval_unit',
  funnelFromStep: 'funnel_from_step', funnelToStep: 'funnel_to_step', binCount: 'bin_count', breakdownAttributionType: 'breakdown_attribution_type',
  breakdownAttributionValue: 'breakdown_attribution_value',
};

/** funnelsFilter's keys under their legacy names; exclusions are EventsNodes with their step range. */
function funnelInput(filter: Json): FilterInput {
  const input = renamed(filter, FUNNEL_KEYS);
  if (filter.exclusions !== undefined && filter.exclusions !== null) {
    if (!Array.isArray(filter.exclusions)) throw ApiError.validation('funnelsFilter.exclusions must be a list of EventsNode with funnelFromStep and funnelToStep.', 'exclusions');
    input.exclusions = filter.exclusions.map((raw) => {
      if (!isJsonObject(raw)) throw ApiError.validation('Each exclusion must be an EventsNode with funnelFromStep and funnelToStep.', 'exclusions');
      const action = raw.kind === 'ActionsNode';
      return { id: action ? raw.id : raw.event, type: action ? 'actions' : 'events', name: raw.name, properties: raw.properties, funnel_from_step: raw.funnelFromStep, funnel_to_step: raw.funnelToStep };
    });
  }
  return input;
}

/** A retention entity as the legacy filter has it: an EventsNode's event, or a legacy {id, type}. */
function retentionEntity(raw: unknown, key: string): unknown {
  if (raw === undefined || raw === null) return undefined;
  if (!isJsonObject(raw)) throw ApiError.validation(`${key} must be an EventsNode or {"id": "<event>", "type": "events"}.`, key);
  if (raw.kind === 'ActionsNode' || raw.type === 'actions') return { id: raw.id, type: 'actions', properties: raw.properties };
  return { id: raw.event ?? raw.id ?? null, type: 'events', name: raw.name, properties: raw.properties };
}

/** retentionFilter's keys (entities aside) and their legacy names. */
export const RETENTION_KEYS: Readonly<Record<string, string>> = { retentionType: 'retention_type', totalIntervals: 'total_intervals', period: 'period' };

/** A RetentionQuery as the legacy retention filter: retentionFilter's keys, dateRange.date_to, filters, breakdown. */
function retentionInput(node: Json): FilterInput {
  const filter = objectField(node, 'retentionFilter');
  const input: FilterInput = {
    ...commonInput(node),
    ...breakdownInput(node),
    ...renamed(filter, RETENTION_KEYS),
  };
  const target = retentionEntity(filter.targetEntity, 'target_entity');
  const returning = retentionEntity(filter.returningEntity, 'returning_entity');
  if (target !== undefined) input.target_entity = target;
  if (returning !== undefined) input.returning_entity = returning;
  return input;
}

/** pathsFilter's keys and their legacy names. */
export const PATHS_KEYS: Readonly<Record<string, string>> = {
  includeEventTypes: 'include_event_types', includeCustomEvents: 'include_custom_events', excludeEvents: 'exclude_events', startPoint: 'start_point',
  endPoint: 'end_point', stepLimit: 'step_limit', edgeLimit: 'edge_limit', minEdgeWeight: 'min_edge_weight', maxEdgeWeight: 'max_edge_weight',
  pathGroupings: 'path_groupings', pathReplacements: 'path_replacements', localPathCleaningFilters: 'local_path_cleaning_filters',
  pathStartKey: 'path_start_key', pathEndKey: 'path_end_key', pathDropoffKey: 'path_dropoff_key',
};

/** A PathsQuery as the legacy paths filter; funnelPathsFilter's funnel becomes `funnel_filter`. */
function pathsInput(node: Json): FilterInput {
  const input: FilterInput = { ...commonInput(node), ...renamed(objectField(node, 'pathsFilter'), PATHS_KEYS) };
  const funnel = objectField(node, 'funnelPathsFilter');
  if (funnel.funnelPathType !== undefined && funnel.funnelPathType !== null) {
    if (!isJsonObject(funnel.funnelSource)) throw ApiError.validation('funnelPathsFilter needs funnelSource: the FunnelsQuery the paths follow.', 'funnelPathsFilter');
    const source = nodeToFilter(funnel.funnelSource);
    input.funnel_paths = funnel.funnelPathType;
    input.funnel_filter = { ...source.input, funnel_step: funnel.funnelStep };
  }
  return input;
}

/** The legacy filter equivalent to an insight node. */
export function nodeToFilter(node: Json): { kind: InsightKind; input: FilterInput } {
  const named = typeof node.kind === 'string' ? node.kind : JSON.stringify(node.kind ?? null);
  const kind = Object.hasOwn(INSIGHT_NODES, named) ? INSIGHT_NODES[named] : undefined;
  if (!kind) throw ApiError.validation(`Query kind ${typeof node.kind === 'string' ? `"${named}"` : named} is not supported here: use TrendsQuery, StickinessQuery, LifecycleQuery, FunnelsQuery, RetentionQuery or PathsQuery.`, 'kind');
  if (kind === 'retention') return { kind, input: retentionInput(node) };
  if (kind === 'paths') return { kind, input: pathsInput(node) };
  if (!Array.isArray(node.series)) throw ApiError.validation('series must be a list of EventsNode.', 'series');
  const trendsFilter = objectField(node, 'trendsFilter');
  const input: FilterInput = {
    ...commonInput(node),
    events: node.series.map(seriesEntity),
    ...(node.interval !== undefined && node.interval !== null ? { interval: node.interval } : {}),
    explicit_date: objectField(node, 'dateRange').explicitDate === true,
    compare: objectField(node, 'compareFilter').compare === true,
    ...unsupportedOptions(node),
  };
  if (kind === 'funnels') Object.assign(input, breakdownInput(node), funnelInput(objectField(node, 'funnelsFilter')));
  const stickinessDisplay = objectField(node, 'stickinessFilter').display;
  if (kind === 'stickiness' && stickinessDisplay !== undefined) input.display = stickinessDisplay;
  if (kind === 'trends') {
    Object.assign(input, breakdownInput(node));
    if (trendsFilter.display !== undefined) input.display = trendsFilter.display;
    // Current PostHog sends formulaNodes; older clients formulas (texts) or one formula.
    const formulas = trendsFilter.formulaNodes ?? trendsFilter.formulas;
    if (formulas !== undefined && formulas !== null) input.formulas = formulas;
    else if (trendsFilter.formula !== undefined && trendsFilter.formula !== null) input.formula = trendsFilter.formula;
  }
  return { kind, input };
}

function inNodeNames(error: unknown): unknown {
  return error instanceof ApiError && error.attr === 'events' ? ApiError.validation(error.detail.replace(/^events/, 'series'), 'series') : error;
}

/** Errors name the node's fields, not the legacy ones they were translated into (from a parse that returns a promise too). */
export function withNodeNames<T>(parse: () => T): T {
  try {
    const parsed = parse();
    return (parsed instanceof Promise ? parsed.catch((error: unknown) => Promise.reject(inNodeNames(error))) : parsed) as T;
  } catch (error) {
    throw inNodeNames(error);
  }
}

const CORRELATION_KEYS: Record<string, string> = {
  funnelCorrelationType: 'funnel_correlation_type', funnelCorrelationExcludeEventNames: 'funnel_correlation_exclude_event_names',
  funnelCorrelationEventNames: 'funnel_correlation_event_names', funnelCorrelationEventExcludePropertyNames: 'funnel_correlation_event_exclude_property_names',
  funnelCorrelationNames: 'funnel_correlation_names', funnelCorrelationExcludeNames: 'funnel_correlation_exclude_names',
};

/** A FunnelCorrelationQuery: its funnel (source.source) and its own keys under their legacy names. */
export function correlationNode(node: Json): { funnel: Json; input: FilterInput } {
  const actors = node.source;
  if (!isJsonObject(actors) || actors.kind !== 'FunnelsActorsQuery' || !isJsonObject(actors.source)) {
    throw ApiError.validation('A FunnelCorrelationQuery\'s source must be a FunnelsActorsQuery over a FunnelsQuery.', 'source');
  }
  return { funnel: actors.source, input: renamed(node, CORRELATION_KEYS) };
}

/** FunnelCorrelationActorsQuery's row selection under its legacy names. */
export function correlationActorsInput(node: Json): FilterInput {
  const input: FilterInput = {};
  if (typeof node.funnelCorrelationPersonConverted === 'boolean') input.funnel_correlation_person_converted = String(node.funnelCorrelationPersonConverted);
  const entity = node.funnelCorrelationPersonEntity;
  if (isJsonObject(entity)) input.funnel_correlation_person_entity = { id: entity.event ?? entity.id, type: 'events', properties: entity.properties };
  if (node.funnelCorrelationPropertyValues !== undefined && node.funnelCorrelationPropertyValues !== null) input.funnel_correlation_property_values = node.funnelCorrelationPropertyValues;
  return input;
}
