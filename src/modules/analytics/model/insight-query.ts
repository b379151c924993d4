import type { DateTime } from 'luxon';
import type { PropertyNode } from '../../../kernel/property-filters';
import type { ActionMatcher } from '../../actions/action-matcher';

/**
 * The one internal model every door (legacy filters, query nodes, persons endpoints) parses into and
 * every SQL builder reads. Nothing here knows about HTTP or SQL.
 */

export const INTERVALS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** Intervals shorter than a day: their ranges keep the time of day, and their labels show it. */
export function isSubDay(interval: Interval): boolean {
  return interval === 'minute' || interval === 'hour';
}

export const EVENT_MATHS = ['total', 'dau', 'weekly_active', 'monthly_active', 'unique_group', 'unique_session'] as const;
export const PROPERTY_MATHS = ['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const;
export type PropertyMath = (typeof PROPERTY_MATHS)[number];
/** The percentile each percentile math reads (also as the prefix of a count-per-actor math). */
export const PERCENTILES: Readonly<Record<string, number>> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };
/** Each actor's number of events in a data point, aggregated over the point's actors (`avg_count_per_actor`: the mean). */
export const COUNT_PER_ACTOR_MATHS = [
  'avg_count_per_actor', 'min_count_per_actor', 'max_count_per_actor', 'median_count_per_actor',
  'p75_count_per_actor', 'p90_count_per_actor', 'p95_count_per_actor', 'p99_count_per_actor',
] as const;
export type CountPerActorMath = (typeof COUNT_PER_ACTOR_MATHS)[number];
/**
 * Actors counted once, at their first event: `first_time_for_user` when their first event of the series ever falls in
 * the range and meets the filters; `first_matching_event_for_user` at their first event that meets the filters.
 */
export const FIRST_TIME_MATHS = ['first_time_for_user', 'first_matching_event_for_user'] as const;
export type FirstTimeMath = (typeof FIRST_TIME_MATHS)[number];
/** The window of the active-users maths, in days ending on the data point's day (its first, for weeks and months). */
export const ACTIVE_USER_DAYS: Readonly<Record<string, number>> = { weekly_active: 7, monthly_active: 30 };

/**
 * The days an active-users math counts over at this interval, or undefined when it is no active-users math or counts
 * as `dau` (the actors of the point itself): weekly at week and month intervals, monthly at months, as PostHog's trends
 * convert them (`convert_active_user_math_based_on_interval`).
 */
export function activeUserDays(math: SeriesMath, interval: Interval): number | undefined {
  if ((math === 'weekly_active' && (interval === 'week' || interval === 'month')) || (math === 'monthly_active' && interval === 'month')) return undefined;
  return ACTIVE_USER_DAYS[math];
}
export type SeriesMath = (typeof EVENT_MATHS)[number] | PropertyMath | CountPerActorMath | FirstTimeMath;

export function isCountPerActor(math: SeriesMath): math is CountPerActorMath {
  return (COUNT_PER_ACTOR_MATHS as readonly string[]).includes(math);
}

export function isFirstTime(math: SeriesMath): math is FirstTimeMath {
  return (FIRST_TIME_MATHS as readonly string[]).includes(math);
}

export const DISPLAYS = [
  'ActionsLineGraph', 'ActionsLineGraphCumulative', 'ActionsAreaGraph', 'ActionsBar', 'ActionsStackedBar',
  'ActionsTable', 'ActionsPie', 'ActionsBarValue', 'BoldNumber', 'WorldMap',
] as const;
export type Display = (typeof DISPLAYS)[number];
/** Displays that show one number per series over the whole range instead of a time series. */
export const AGGREGATE_DISPLAYS: ReadonlySet<Display> = new Set(['ActionsTable', 'ActionsPie', 'ActionsBarValue', 'BoldNumber', 'WorldMap']);

export type InsightKind = 'trends' | 'stickiness' | 'lifecycle' | 'funnels' | 'retention' | 'paths';

export const PATH_EVENT_TYPES = ['$pageview', '$screen', 'custom_event'] as const;
export const FUNNEL_PATH_TYPES = ['funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'] as const;

/** What paths add to the query (kept as given, so it can key the cache; cleaning rules are compiled when used). */
export interface PathOptions {
  eventTypes: Array<(typeof PATH_EVENT_TYPES)[number]>;
  customEvents: string[];
  excludeEvents: string[];
  startPoint: string | null;
  endPoint: string | null;
  stepLimit: number;
  /** null: every edge. */
  edgeLimit: number | null;
  minEdgeWeight: number | null;
  maxEdgeWeight: number | null;
  groupings: string[];
  /** The project's rules (with path_replacements) then the request's own, in order. */
  cleaningRules: Array<{ regex: string; alias: string }>;
  /** Paths of a funnel's actors, relative to one of its steps. */
  funnel: { type: (typeof FUNNEL_PATH_TYPES)[number]; step: number; query: InsightQuery } | null;
}

/** Which actors of a paths insight a persons request lists (keys like `2_/pricing`). */
export interface PathActorsSelection {
  start: string | null;
  end: string | null;
  dropoff: string | null;
  limit: number;
  offset: number;
}

/** A retention entity: the event that puts an actor in a cohort (target) or counts as coming back (returning). */
export interface RetentionEntity {
  /** null: any event (or the action's). */
  event: string | null;
  /** An action's events instead of one event name. */
  action: ActionMatcher | null;
  name: string;
  properties: PropertyNode | null;
  raw: unknown;
}

/** What retention adds to the query: its range is the cohorts' (cohort 0's start to cohort n-1's end), its interval the period. */
export interface RetentionOptions {
  type: 'recurring' | 'first_time';
  totalIntervals: number;
  target: RetentionEntity;
  returning: RetentionEntity;
}

/** Which actors of a retention table a persons request lists: one cohort, or one breakdown line. */
export interface RetentionActorsSelection {
  cohort?: number;
  breakdownValue?: string;
  limit: number;
  offset: number;
}

export const FUNNEL_ORDER_TYPES = ['ordered', 'strict', 'unordered'] as const;
export const FUNNEL_WINDOW_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const;
export type FunnelWindowUnit = (typeof FUNNEL_WINDOW_UNITS)[number];
export const FUNNEL_VIZ_TYPES = ['steps', 'time_to_convert', 'trends'] as const;
export type FunnelVizType = (typeof FUNNEL_VIZ_TYPES)[number];

/** Events that disqualify a funnel run when they happen between two of its steps. */
export interface FunnelExclusion {
  event: string | null;
  /** An action's events instead of one event name. */
  action: ActionMatcher | null;
  name: string;
  properties: PropertyNode | null;
  /** 0-based steps the exclusion applies between. */
  fromStep: number;
  toStep: number;
  raw: unknown;
}

export const FUNNEL_ATTRIBUTION_TYPES = ['first_touch', 'last_touch', 'all_events', 'step'] as const;

/** What a funnel adds to the query: its steps are the query's series, in order; a breakdown is the query's. */
export interface FunnelOptions {
  orderType: (typeof FUNNEL_ORDER_TYPES)[number];
  window: { interval: number; unit: FunnelWindowUnit };
  exclusions: FunnelExclusion[];
  vizType: FunnelVizType;
  /** 0-based steps between which time to convert and funnel trends measure conversion. */
  fromStep: number;
  toStep: number;
  /** Time to convert: histogram bins asked for (null: chosen from the number of actors). */
  binCount: number | null;
  attribution: { type: (typeof FUNNEL_ATTRIBUTION_TYPES)[number]; step: number | null };
}

/** One series (`events[i]`): which events, and what a data point computes over them. */
export interface Series {
  /** Position after sorting by `order` (PostHog's entity index); formulas call it A, B, C… */
  index: number;
  /** Event name; null means every event, or the action's. */
  event: string | null;
  /** An action series (`actions`, ActionsNode): the events matching the action instead of one event name. */
  action: ActionMatcher | null;
  name: string;
  customName: string | null;
  order: number | null;
  math: SeriesMath;
  mathProperty: string | null;
  mathGroupTypeIndex: number | null;
  properties: PropertyNode | null;
  /** The entity's own properties as given, echoed in replies. */
  rawProperties: unknown;
}

/** A resolved, closed range of instants, with the project's zone for bucketing and labels. */
export interface DateRange {
  from: DateTime;
  to: DateTime;
  /** What the caller asked for, echoed in `filter` and persons URLs. */
  requestedFrom: string | null;
  requestedTo: string | null;
  explicit: boolean;
}

/** A property breakdown (one or several properties) or a cohort breakdown. */
export type Breakdown =
  | {
      kind: 'property';
      properties: Array<{ key: string; type: 'event' | 'person' | 'group'; groupTypeIndex: number | null }>;
      limit: number;
      /** `breakdown_hide_other_aggregation`: no Other line for the values past the limit. */
      hideOther: boolean;
      /** `breakdown_histogram_bin_count`: a numeric property in this many bins, by quantile (trends). */
      histogramBinCount: number | null;
      /** The bins' bounds `[lo, hi)` and labels once read from the data (set by the trends service, never parsed). */
      bins?: HistogramBin[];
      raw: unknown;
    }
  | { kind: 'cohort'; cohorts: Array<number | 'all'>; raw: unknown };

/** One histogram bin of a numeric breakdown: values from `lo` up to (not with) `hi`, and its label `[lo,hi]`. */
export interface HistogramBin {
  lo: number;
  hi: number;
  label: string;
}

/** What the persons of one data point are selected by, on top of the insight itself. */
export interface ActorsSelection {
  seriesIndex: number;
  /** The point's own range (a bucket, or the whole range for aggregate displays). */
  range: DateRange;
  /** A breakdown value (text, a list of texts for several properties) or a cohort id / "all". */
  breakdownValue?: string | string[] | number | 'all';
  /** The Other line's point: the values it leaves out, as its insight ranked them (ranked again when absent). */
  otherThan?: string[];
  /** Stickiness: actors active in exactly this many intervals. */
  stickinessDays?: number;
  /** Lifecycle: the status and the period start it holds in. */
  lifecycle?: { status: LifecycleStatus; target: DateTime };
  search?: string;
  limit: number;
  offset: number;
}

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

/** A formula over the series by letter (`A+B`) and the name its line shows instead of `Formula (A+B)`. */
export interface FormulaLine {
  formula: string;
  customName: string | null;
}

export interface InsightQuery {
  kind: InsightKind;
  series: Series[];
  range: DateRange;
  interval: Interval;
  timezone: string;
  /** 0 = weeks start on Sunday, 1 = Monday. */
  weekStartDay: 0 | 1;
  properties: PropertyNode | null;
  filterTestAccounts: boolean;
  breakdown: Breakdown | null;
  /** Breakdown paging: which values (by rank) this page shows. */
  breakdownOffset: number;
  compare: boolean;
  /** Lines computed from the series' points (`formula`, `formulas`, `formulaNodes`), in order; when any, they replace the series' lines. */
  formulas: FormulaLine[];
  display: Display;
  /** Aggregate by this group type instead of persons (`aggregation_group_type_index`). */
  aggregationGroupTypeIndex: number | null;
  /** Funnels only. */
  funnel?: FunnelOptions;
  /** Retention only. */
  retention?: RetentionOptions;
  /** Paths only. */
  paths?: PathOptions;
}

/** Which actors of a funnel a persons request lists (1-based steps; negative: dropped before that step). */
export interface FunnelActorsSelection {
  step?: number;
  customSteps?: number[];
  /** A breakdown line: its value (text, JSON text of a list for several properties) or a cohort id / "all". */
  breakdownValue?: string | number | 'all';
  /** Funnel trends: the entrance period, and whether to list those who dropped off instead of converting. */
  entrancePeriod?: { start: DateTime; dropOff: boolean };
  search?: string;
  limit: number;
  offset: number;
}

/** The largest number of buckets one series may have: a year of hours, or ten years of days. */
export const MAX_BUCKETS = 10_000;
/** Breakdown values shown at once; more come through `next`. */
export const DEFAULT_BREAKDOWN_LIMIT = 25;
export const MAX_BREAKDOWN_LIMIT = 1000;
/** A missing breakdown property, as PostHog names it. */
export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
/** The line of every breakdown value past the shown ones, as PostHog names it: with it, the lines add up to the total. */
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';

/** The Other line's breakdown value as replies show it: the marker, once per breakdown property when there are several. */
export function otherValue(breakdown: Breakdown & { kind: 'property' }): string | string[] {
  return breakdown.properties.length > 1 ? breakdown.properties.map(() => BREAKDOWN_OTHER) : BREAKDOWN_OTHER;
}

/** A breakdown value as lines are labelled: several properties' values joined by `::`, as PostHog shows them. */
export function breakdownLabel(value: string | string[]): string {
  return Array.isArray(value) ? value.join('::') : value;
}

/** Whether a breakdown value (text, or a list for several properties) names the Other line. */
export function isOtherValue(value: unknown): boolean {
  return value === BREAKDOWN_OTHER || (Array.isArray(value) && value.length > 0 && value.every((v) => v === BREAKDOWN_OTHER));
}
