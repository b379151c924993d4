import { DateTime } from 'luxon';
import type { FunnelOptions, InsightQuery } from './insight-query';

/**
 * The runs of one actor through a funnel, from their matching events in time order (each with a bit mask
 * of the steps and exclusions it matches). The engine evaluates funnels in SQL (sql/funnel-outcome.sql.ts);
 * this is the same meaning stated plainly: what event-property correlation evaluates in the process, and the
 * oracle the SQL is tested against.
 *
 * A run starts at an event of the first step. Ordered: step i is the earliest step-i event at or after
 * step i-1's time (strictly after when both steps name the same event with the same filters, so one
 * event cannot be two steps), and no later than the first step's time plus the window. Strict: step i
 * must be the event exactly i places after the start among all the actor's events. Unordered: each step
 * in turn may start; the run counts every other step with an event inside the window. A run is thrown
 * away when an exclusion event falls strictly between its `from` step and its `to` step (or the end of
 * the window when `to` was not reached). The actor's result is their best run; conversion times are
 * averaged (and taken the median of) over every run that reached that best.
 */

export type FunnelOrderType = 'ordered' | 'strict' | 'unordered';

interface FunnelExclusionBits {
  /** The mask bit exclusion events carry. */
  bit: number;
  fromStep: number;
  toStep: number;
}

export interface FunnelSpec {
  stepCount: number;
  orderType: FunnelOrderType;
  /** The conversion window, and the last instant (ms) it lets a run that started at `start` (ms) reach a step. */
  window: FunnelOptions['window'];
  windowEnd: (start: number) => number;
  /** sameAsPrevious[i]: step i is the same event and filters as step i-1. */
  sameAsPrevious: boolean[];
  exclusions: FunnelExclusionBits[];
}

/** One actor's events in time order: instants in ms and the step/exclusion bits each matches. */
export interface ActorEvents {
  times: number[];
  masks: number[];
}

/** Reached instants of one run, step by step; `end` bounds exclusions when the run stopped early. */
interface Run {
  reached: number[];
  end: number;
}

/** First position whose time is ≥ t (or > t when `strict`). */
function lowerBound(times: number[], t: number, strict: boolean): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t || (strict && times[mid] === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The first position ≥ p whose event matches each step (the length when none does), at `step * stride + p`
 * of one buffer shared by every evaluation: an actor is evaluated synchronously, start to end, so a buffer
 * per actor would only be garbage.
 */
interface NextMatches {
  at: Int32Array;
  stride: number;
}

let nextBuffer = new Int32Array(1024);

function nextMatches(events: ActorEvents, stepCount: number): NextMatches {
  const length = events.times.length;
  const stride = length + 1;
  if (nextBuffer.length < stride * stepCount) nextBuffer = new Int32Array(Math.max(stride * stepCount, nextBuffer.length * 2));
  const at = nextBuffer;
  for (let step = 0; step < stepCount; step++) {
    const base = step * stride;
    const bit = 1 << step;
    at[base + length] = length;
    for (let p = length - 1; p >= 0; p--) at[base + p] = events.masks[p] & bit ? p : at[base + p + 1];
  }
  return { at, stride };
}

function orderedRun(events: ActorEvents, spec: FunnelSpec, next: NextMatches, start: number): Run {
  const reached = [events.times[start]];
  const end = spec.windowEnd(reached[0]);
  for (let step = 1; step < spec.stepCount; step++) {
    const from = lowerBound(events.times, reached[step - 1], spec.sameAsPrevious[step]);
    const at = next.at[step * next.stride + from];
    if (at >= events.times.length || events.times[at] > end) break;
    reached.push(events.times[at]);
  }
  return { reached, end };
}

function strictRun(events: ActorEvents, spec: FunnelSpec, start: number): Run {
  const reached = [events.times[start]];
  const end = spec.windowEnd(reached[0]);
  for (let step = 1; step < spec.stepCount; step++) {
    const at = start + step;
    if (at >= events.times.length || !(events.masks[at] & (1 << step)) || events.times[at] > end) break;
    reached.push(events.times[at]);
  }
  return { reached, end };
}

/** Unordered: the first step is `first`; every other step counts if it happened inside the window. */
function unorderedRun(events: ActorEvents, spec: FunnelSpec, next: NextMatches, start: number, first: number): Run {
  const t0 = events.times[start];
  const end = spec.windowEnd(t0);
  const from = lowerBound(events.times, t0, false);
  const reached = [t0];
  for (let step = 0; step < spec.stepCount; step++) {
    if (step === first) continue;
    const at = next.at[step * next.stride + from];
    if (at >= events.times.length || events.times[at] > end) continue;
    // The other steps' instants, kept in ascending order after the first step's.
    const t = events.times[at];
    let j = reached.length;
    reached.push(t);
    for (; j > 1 && reached[j - 1] > t; j--) reached[j] = reached[j - 1];
    reached[j] = t;
  }
  return { reached, end };
}

/** An exclusion event strictly between the run's `from` step and its `to` step (or the window's end). */
function excluded(events: ActorEvents, spec: FunnelSpec, run: Run): boolean {
  for (const exclusion of spec.exclusions) {
    if (run.reached.length <= exclusion.fromStep) continue;
    const after = run.reached[exclusion.fromStep];
    const before = exclusion.toStep < run.reached.length ? run.reached[exclusion.toStep] : run.end;
    for (let p = lowerBound(events.times, after, true); p < events.times.length && events.times[p] < before; p++) {
      if (events.masks[p] & (1 << exclusion.bit)) return true;
    }
  }
  return false;
}

function runs(events: ActorEvents, spec: FunnelSpec): Run[] {
  const next = spec.orderType === 'strict' ? null : nextMatches(events, spec.stepCount);
  const found: Run[] = [];
  const { masks } = events;
  const firstSteps = spec.orderType === 'unordered' ? spec.stepCount : 1;
  for (let first = 0; first < firstSteps; first++) {
    const bit = 1 << first;
    for (let p = 0; p < masks.length; p++) {
      if (!(masks[p] & bit)) continue;
      if (next === null) found.push(strictRun(events, spec, p));
      else if (spec.orderType === 'ordered') found.push(orderedRun(events, spec, next, p));
      else found.push(unorderedRun(events, spec, next, p, first));
    }
  }
  return found;
}

/** One step of the insight: actors who reached at least it, and their conversion times from the step before. */
export interface StepSummary {
  count: number;
  averageConversionTime: number | null;
  medianConversionTime: number | null;
}

/** A run that counts: the instants of the steps it reached, in step order. */
export interface KeptRun {
  reached: number[];
}

/** Every run of the actor that no exclusion throws away. */
export function keptRuns(events: ActorEvents, spec: FunnelSpec): KeptRun[] {
  const found = runs(events, spec);
  return spec.exclusions.length === 0 ? found : found.filter((run) => !excluded(events, spec, run));
}

/** The runs that reached the most steps (none when there are no runs). */
function bestRuns(kept: KeptRun[]): KeptRun[] {
  const steps = kept.reduce((best, run) => Math.max(best, run.reached.length), 0);
  return kept.filter((run) => run.reached.length === steps && steps > 0);
}

/** Of the best runs, the one that started first: the run correlation reads an actor's span from. */
export function earliestBestRun(kept: KeptRun[]): KeptRun | null {
  return bestRuns(kept).reduce<KeptRun | null>((first, run) => (first === null || run.reached[0] < first.reached[0] ? run : first), null);
}

/** Which actors a persons request lists: reached at least `step` (positive), or dropped right before it (negative), or one of `custom` step counts. */
export function stepSelector(selection: { step?: number; customSteps?: number[] }): (steps: number) => boolean {
  if (selection.customSteps && selection.customSteps.length > 0) {
    const wanted = new Set(selection.customSteps);
    return (steps) => wanted.has(steps);
  }
  const step = selection.step ?? 1;
  return step > 0 ? (steps) => steps >= step : (steps) => steps === -step - 1;
}

export const UNIT_MS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;

/** The evaluation's view of a funnel query: steps, order, window, and which bits exclusions carry. */
export function funnelSpecOf(query: InsightQuery): FunnelSpec {
  const options = query.funnel;
  if (!options) throw new Error('funnelSpecOf needs a funnel query');
  const { interval, unit } = options.window;
  const windowEnd =
    unit === 'month'
      ? (start: number) => DateTime.fromMillis(start, { zone: 'utc' }).plus({ months: interval }).toMillis()
      : (start: number) => start + interval * UNIT_MS[unit];
  const steps = query.series;
  const sameAsPrevious = steps.map(
    (step, i) => i > 0 && step.event === steps[i - 1].event && step.action?.id === steps[i - 1].action?.id && JSON.stringify(step.rawProperties) === JSON.stringify(steps[i - 1].rawProperties),
  );
  const exclusions = options.exclusions.map((e, j) => ({ bit: steps.length + j, fromStep: e.fromStep, toStep: e.toStep }));
  return { stepCount: steps.length, orderType: options.orderType, window: options.window, windowEnd, sameAsPrevious, exclusions };
}
