import type { DateTime } from 'luxon';
import type { DateRange, LifecycleStatus, Series } from './insight-query';

/** A breakdown value as replies show it: text, a list (several properties), a cohort id or "all". */
export type BreakdownValue = string | string[] | number | 'all';

/** One computed line (or single number) of an insight, before any presenter shapes it. */
export interface SeriesResult {
  /** Null for the line a formula computes from the others. */
  series: Series | null;
  label: string;
  breakdownValue: BreakdownValue | null;
  /** The cohort's name for cohort breakdowns (labels). */
  breakdownLabel: string | null;
  compareLabel: 'current' | 'previous' | null;
  range: DateRange;
  buckets: DateTime[];
  data: number[];
  /** Aggregate displays: the one number over the whole range. */
  aggregatedValue: number | null;
  /** The Other line: the breakdown values it leaves out (the ranked ones). */
  otherThan?: string[];
  lifecycleStatus?: LifecycleStatus;
}

export interface InsightResult {
  series: SeriesResult[];
  /** More breakdown values exist past this page. */
  hasMore: boolean;
}

/** One actor behind a data point, with its value there (events, or the property math over them). */
export interface ActorRef {
  id: string;
  value: number | null;
}

export interface ActorPage {
  actors: ActorRef[];
  /** The page was full: there may be more (PostHog's `next` rule). */
  full: boolean;
  kind: 'person' | 'group';
  groupTypeIndex: number | null;
}
