import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import type { DateTime } from 'luxon';
import { intervalStart, parseInsightDate } from '../model/insight-dates';
import {
  FUNNEL_ATTRIBUTION_TYPES, FUNNEL_ORDER_TYPES, FUNNEL_VIZ_TYPES, FUNNEL_WINDOW_UNITS, FunnelActorsSelection, FunnelExclusion, FunnelOptions, FunnelWindowUnit,
  InsightQuery,
} from '../model/insight-query';
import { pageOf } from './actors-request.parser';
import { booleanValue, enumValue, FilterInput, integerValue, jsonValue, present, propertyFilterValue, textValue } from './filter-values';
import { actionNamed, entityType, ProjectActions } from './entity-values';
import { legacyBreakdown, ParseContext, parseLegacyFilter } from './legacy-filter.parser';

/**
 * The funnel parts of PostHog's legacy filter: order type, conversion window, exclusions and the viz
 * type; the steps, dates and filters are read as for every insight. Persons requests add `funnel_step`
 * or `funnel_custom_steps`.
 */

/** Exclusions per funnel: with at most 20 steps, every step and exclusion has its own bit of an int mask. */
const MAX_EXCLUSIONS = 10;
/** A conversion window longer than ten years is surely a mistake (and would overflow date arithmetic). */
const MAX_WINDOW_SECONDS = 3650 * 86_400;
const UNIT_SECONDS: Record<FunnelWindowUnit, number> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_678_400 };

function windowOf(input: FilterInput): FunnelOptions['window'] {
  if (!present(input, 'funnel_window_interval') && present(input, 'funnel_window_days')) {
    return { interval: integerValue(input, 'funnel_window_days', 14, 1, MAX_WINDOW_SECONDS / 86_400), unit: 'day' };
  }
  const unit = enumValue(input, 'funnel_window_interval_unit', FUNNEL_WINDOW_UNITS, 'day', (v) => v.toLowerCase());
  const interval = integerValue(input, 'funnel_window_interval', 14, 1, Math.floor(MAX_WINDOW_SECONDS / UNIT_SECONDS[unit]));
  return { interval, unit };
}

function stepIndex(value: unknown, attr: string): number {
  const step = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value;
  if (typeof step !== 'number' || !Number.isInteger(step)) throw ApiError.validation(`Each exclusion needs ${attr}: a 0-based step index.`, 'exclusions');
  return step;
}

function exclusionOf(raw: unknown, query: InsightQuery, orderType: FunnelOptions['orderType'], actions: ProjectActions): FunnelExclusion {
  const last = query.series.length - 1;
  if (!isJsonObject(raw)) throw ApiError.validation('exclusions must be a JSON list of {"id": "<event>", "funnel_from_step": i, "funnel_to_step": j}.', 'exclusions');
  const action = entityType(raw, 'events', 'exclusions') === 'actions' ? actionNamed(raw.id, actions, 'exclusions') : null;
  if (!action && (typeof raw.id !== 'string' || raw.id === '')) throw ApiError.validation('Each exclusion needs id: the event name to exclude.', 'exclusions');
  const fromStep = stepIndex(raw.funnel_from_step, 'funnel_from_step');
  const toStep = stepIndex(raw.funnel_to_step, 'funnel_to_step');
  if (fromStep < 0 || toStep > last || fromStep >= toStep) {
    throw ApiError.validation(`Exclusion steps must lie inside the funnel: 0 ≤ funnel_from_step < funnel_to_step ≤ ${last} (got ${fromStep} and ${toStep}).`, 'exclusions');
  }
  if (orderType === 'unordered' && (fromStep !== 0 || toStep !== last)) {
    throw ApiError.validation(`Partial exclusions are not allowed in unordered funnels: use funnel_from_step 0 and funnel_to_step ${last}.`, 'exclusions');
  }
  const properties = propertyFilterValue(raw.properties, 'exclusions');
  // A step of the range that is the same event or action (or any event) would be excluded by itself.
  const same = (step: InsightQuery['series'][number]) => (action ? step.action?.id === action.id : step.action === null && (step.event === raw.id || step.event === null));
  if (query.series.slice(fromStep, toStep + 1).some(same) && properties === null) {
    throw ApiError.validation(`Exclusion "${String(action?.name ?? raw.id)}" would exclude a step of its own range: exclude another event, or narrow it with properties.`, 'exclusions');
  }
  const event = action ? null : (raw.id as string);
  return { event, action, name: action?.name ?? (typeof raw.name === 'string' ? raw.name : (event ?? '')), properties, fromStep, toStep, raw };
}

function exclusionsOf(input: FilterInput, query: InsightQuery, orderType: FunnelOptions['orderType'], actions: ProjectActions): FunnelExclusion[] {
  if (!present(input, 'exclusions')) return [];
  const list = jsonValue(input, 'exclusions');
  if (!Array.isArray(list)) throw ApiError.validation('exclusions must be a JSON list of {"id": "<event>", "funnel_from_step": i, "funnel_to_step": j}.', 'exclusions');
  if (list.length > MAX_EXCLUSIONS) throw ApiError.validation(`At most ${MAX_EXCLUSIONS} exclusions are allowed in one funnel.`, 'exclusions');
  return list.map((raw) => exclusionOf(raw, query, orderType, actions));
}

/** The viz type; the legacy `display=ActionsLineGraph` on a funnel means funnel trends. */
function vizTypeOf(input: FilterInput): FunnelOptions['vizType'] {
  const fallback = textValue(input, 'display') === 'ActionsLineGraph' ? 'trends' : 'steps';
  return enumValue(input, 'funnel_viz_type', FUNNEL_VIZ_TYPES, fallback);
}

/** `funnel_from_step` / `funnel_to_step`: the 0-based steps time to convert and funnel trends measure between. */
function conversionSteps(input: FilterInput, stepCount: number): { fromStep: number; toStep: number } {
  const last = stepCount - 1;
  const fromStep = integerValue(input, 'funnel_from_step', 0, 0, last - 1);
  const toStep = integerValue(input, 'funnel_to_step', last, 1, last);
  if (toStep <= fromStep) throw ApiError.validation(`funnel_to_step (${toStep}) must come after funnel_from_step (${fromStep}).`, 'funnel_to_step');
  return { fromStep, toStep };
}

function attributionOf(input: FilterInput, stepCount: number): FunnelOptions['attribution'] {
  const type = enumValue(input, 'breakdown_attribution_type', FUNNEL_ATTRIBUTION_TYPES, 'first_touch');
  if (type !== 'step') return { type, step: null };
  if (!present(input, 'breakdown_attribution_value')) {
    throw ApiError.validation('breakdown_attribution_type=step needs breakdown_attribution_value: the 0-based step whose value counts.', 'breakdown_attribution_value');
  }
  return { type, step: integerValue(input, 'breakdown_attribution_value', 0, 0, stepCount - 1) };
}

/** A legacy funnel filter as one insight query with its funnel options. */
export function parseFunnelFilter(input: FilterInput, context: ParseContext): InsightQuery {
  const query = parseLegacyFilter(input, context, 'funnels');
  const stepCount = query.series.length;
  if (stepCount < 2) {
    throw ApiError.validation(`A funnel needs at least two steps in events (got ${stepCount}): e.g. events=[{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}].`, 'events');
  }
  const orderType = enumValue(input, 'funnel_order_type', FUNNEL_ORDER_TYPES, 'ordered');
  const vizType = vizTypeOf(input);
  const breakdown = legacyBreakdown(input, 'ActionsLineGraph');
  if (breakdown && vizType === 'time_to_convert') {
    throw ApiError.validation('Time to convert is one histogram for the whole funnel: remove breakdown, or use funnel_viz_type=steps or trends.', 'breakdown');
  }
  const funnel: FunnelOptions = {
    orderType,
    window: windowOf(input),
    exclusions: exclusionsOf(input, query, orderType, context.actions),
    vizType,
    ...conversionSteps(input, stepCount),
    binCount: present(input, 'bin_count') ? integerValue(input, 'bin_count', 1, 1, 90) : null,
    attribution: attributionOf(input, stepCount),
  };
  return { ...query, breakdown, funnel };
}

/** `funnel_step_breakdown`: one line's value, as JSON or text; a one-item list means its item. */
function breakdownSelection(query: InsightQuery, input: FilterInput): FunnelActorsSelection['breakdownValue'] {
  if (!query.breakdown || !present(input, 'funnel_step_breakdown')) return undefined;
  const raw = input.funnel_step_breakdown;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
  }
  if (query.breakdown.kind === 'cohort') return value === 'all' || value === 0 ? 'all' : integerValue({ funnel_step_breakdown: value }, 'funnel_step_breakdown', 0, 1, 2_147_483_647);
  const list = Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) : [typeof value === 'string' ? value : JSON.stringify(value)];
  if (list.length !== query.breakdown.properties.length) {
    throw ApiError.validation(`funnel_step_breakdown must give ${query.breakdown.properties.length} value(s), one per breakdown property.`, 'funnel_step_breakdown');
  }
  return list.length === 1 ? list[0] : JSON.stringify(list);
}

/** Funnel trends persons: `entrance_period_start` (required) and `drop_off`. */
function entrancePeriodOf(query: InsightQuery, input: FilterInput, now: DateTime): FunnelActorsSelection['entrancePeriod'] {
  if (query.funnel?.vizType !== 'trends') return undefined;
  const raw = textValue(input, 'entrance_period_start');
  if (raw === null) throw ApiError.validation('Funnel trends persons need entrance_period_start: the start of the period whose entrants to list.', 'entrance_period_start');
  const start = intervalStart(parseInsightDate(raw, 'entrance_period_start', query.timezone, now).at.setZone(query.timezone), query.interval, query.weekStartDay);
  return { start, dropOff: booleanValue(input, 'drop_off') };
}

/**
 * `funnel_step` (1-based; negative: dropped off right before that step, so -1 means nothing) or
 * `funnel_custom_steps` (a JSON list of exact step counts), and the page.
 */
export function funnelActorsSelection(query: InsightQuery, input: FilterInput, now: DateTime): FunnelActorsSelection {
  const steps = query.series.length;
  const page = {
    ...pageOf(input),
    breakdownValue: breakdownSelection(query, input),
    entrancePeriod: entrancePeriodOf(query, input, now),
  };
  if (present(input, 'funnel_custom_steps')) {
    const list = jsonValue(input, 'funnel_custom_steps');
    if (!Array.isArray(list) || list.length === 0 || list.some((s) => !Number.isInteger(s) || s < 1 || s > steps)) {
      throw ApiError.validation(`funnel_custom_steps must be a JSON list of step numbers from 1 to ${steps}, e.g. [1, 3].`, 'funnel_custom_steps');
    }
    return { customSteps: list as number[], ...page };
  }
  const step = integerValue(input, 'funnel_step', 1, -steps, steps);
  if (step === 0) throw ApiError.validation(`funnel_step counts from 1 (reached at least that step) or from -2 (dropped off right before that step).`, 'funnel_step');
  if (step === -1) throw ApiError.validation('Nobody drops off before the first step: to request drop-off of the first step use funnel_step=-2.', 'funnel_step');
  return { step, ...page };
}
