import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import { parsePathCleaningRules, PathCleaningError } from '../../../common/validation/path-cleaning';
import { FUNNEL_PATH_TYPES, InsightQuery, PATH_EVENT_TYPES, PathActorsSelection, PathOptions } from '../model/insight-query';
import { pageOf } from './actors-request.parser';
import { booleanValue, enumValue, FilterInput, integerValue, jsonValue, nameListValue, present, textValue } from './filter-values';
import { parseFunnelFilter } from './funnel-filter.parser';
import { ParseContext, parseLegacyFilter } from './legacy-filter.parser';

/**
 * PostHog's paths filter: which events make path items (`path_type` or `include_event_types`, plus
 * `include_custom_events`), start and end points, step and edge limits, edge weights, exclusions,
 * wildcard groupings, cleaning rules (the project's with `path_replacements`, and
 * `local_path_cleaning_filters`), and funnel paths.
 */

const MAX_STEP_LIMIT = 20;
const MAX_EDGE_LIMIT = 10_000;
const DEFAULT_STEP_LIMIT = 5;
const DEFAULT_EDGE_LIMIT = 50;

function eventTypesOf(input: FilterInput): PathOptions['eventTypes'] {
  if (!present(input, 'include_event_types')) {
    return [enumValue(input, 'path_type', PATH_EVENT_TYPES, '$pageview')];
  }
  const list = nameListValue(input, 'include_event_types');
  for (const type of list) {
    if (!(PATH_EVENT_TYPES as readonly string[]).includes(type)) {
      throw ApiError.validation(`include_event_types "${type}" is not supported: use ${PATH_EVENT_TYPES.join(', ')}.`, 'include_event_types');
    }
  }
  return list as PathOptions['eventTypes'];
}

function optionalWeight(input: FilterInput, key: string): number | null {
  return present(input, key) ? integerValue(input, key, 1, 1, 1_000_000_000) : null;
}

/** Cleaning rules, checked here so a bad one is a 400 naming where it came from. */
function cleaningRules(raw: unknown, attr: string): Array<{ regex: string; alias: string }> {
  try {
    parsePathCleaningRules(raw);
  } catch (error) {
    if (error instanceof PathCleaningError) throw ApiError.validation(`${attr} ${error.message}.`, attr);
    throw error;
  }
  return (raw as Array<Record<string, unknown>>).map((rule) => ({ regex: String(rule.regex), alias: typeof rule.alias === 'string' ? rule.alias : '' }));
}

function funnelPathsOf(input: FilterInput, context: ParseContext): PathOptions['funnel'] {
  if (!present(input, 'funnel_paths')) return null;
  const type = enumValue(input, 'funnel_paths', FUNNEL_PATH_TYPES, 'funnel_path_after_step');
  const raw = present(input, 'funnel_filter') ? jsonValue(input, 'funnel_filter') : null;
  if (!isJsonObject(raw)) throw ApiError.validation('funnel_paths needs funnel_filter: the funnel (events, funnel_step, …) as a JSON object.', 'funnel_filter');
  const query = parseFunnelFilter(raw, context);
  const steps = query.series.length;
  const step = integerValue(raw, 'funnel_step', 1, -steps, steps);
  if (step === 0 || step === -1 || (step < 0 && type !== 'funnel_path_after_step') || (type === 'funnel_path_between_steps' && step < 2)) {
    throw ApiError.validation('funnel_filter.funnel_step must name a step the path is relative to: 1 to n (2 to n between steps), or a drop-off (-2 to -n) after it.', 'funnel_filter');
  }
  return { type, step, query };
}

/** A start or end point as path items are written: a page's URL loses one trailing slash (`/about/` is `/about`). */
function pathPoint(input: FilterInput, key: 'start_point' | 'end_point'): string | null {
  const point = textValue(input, key);
  return point !== null && point.length > 1 && point.endsWith('/') ? point.slice(0, -1) : point;
}

export function parsePathFilter(input: FilterInput, context: ParseContext, projectRules: unknown[]): InsightQuery {
  const base = parseLegacyFilter({ ...input, events: undefined, actions: undefined }, context, 'paths');
  const eventTypes = eventTypesOf(input);
  const customEvents = nameListValue(input, 'include_custom_events');
  if (customEvents.length > 0 && eventTypes.includes('custom_event')) {
    throw ApiError.validation('include_custom_events lists events that custom_event already includes: give one or the other.', 'include_custom_events');
  }
  const startPoint = pathPoint(input, 'start_point');
  const endPoint = pathPoint(input, 'end_point');
  const explicitEdgeLimit = present(input, 'edge_limit');
  const edgeLimit = explicitEdgeLimit ? integerValue(input, 'edge_limit', DEFAULT_EDGE_LIMIT, 1, MAX_EDGE_LIMIT) : startPoint && endPoint ? null : DEFAULT_EDGE_LIMIT;
  const local = present(input, 'local_path_cleaning_filters') ? cleaningRules(jsonValue(input, 'local_path_cleaning_filters'), 'local_path_cleaning_filters') : [];
  const project = booleanValue(input, 'path_replacements') ? cleaningRules(projectRules, 'path_cleaning_filters') : [];
  const paths: PathOptions = {
    eventTypes,
    customEvents,
    excludeEvents: nameListValue(input, 'exclude_events'),
    startPoint,
    endPoint,
    stepLimit: integerValue(input, 'step_limit', DEFAULT_STEP_LIMIT, 1, MAX_STEP_LIMIT),
    edgeLimit,
    minEdgeWeight: optionalWeight(input, 'min_edge_weight'),
    maxEdgeWeight: optionalWeight(input, 'max_edge_weight'),
    groupings: nameListValue(input, 'path_groupings'),
    cleaningRules: [...project, ...local],
    funnel: funnelPathsOf(input, context),
  };
  return { ...base, series: [], paths };
}

const KEY = /^\d+_./s;

function pathKey(input: FilterInput, key: string): string | null {
  const value = textValue(input, key);
  if (value !== null && !KEY.test(value)) throw ApiError.validation(`${key} must be a path key: the step number, an underscore and the item, e.g. 2_/pricing.`, key);
  return value;
}

export function pathActorsSelection(input: FilterInput): PathActorsSelection {
  const { limit, offset } = pageOf(input);
  return {
    start: pathKey(input, 'path_start_key'),
    end: pathKey(input, 'path_end_key'),
    dropoff: pathKey(input, 'path_dropoff_key'),
    limit,
    offset,
  };
}
