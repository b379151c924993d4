import { DateTime } from 'luxon';
import { median as medianOfMany } from 'simple-statistics';
import type { FunnelOptions, InsightQuery } from './insight-query';

/**
 * How far one actor got through a funnel, from their matching events in time order. Pure: the SQL
 * only collects each actor's events with a bit mask of the steps (and exclusions) each event matches;
 * the funnel's meaning lives here, where it is tested directly.
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

export interface ActorOutcome {
  /** Steps reached by the best run (0: no run counted, e.g. every run was excluded). */
  steps: number;
  /** Per step i ≥ 1 reached: mean and median seconds from step i-1 over the best runs; index 0 is unused. */
  averageSeconds: Array<number | null>;
  medianSeconds: Array<number | null>;
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

/** Scratch for the medians of few values (one actor's runs): sorted in place, no array per call. */
const fewValues = new Float64Array(32);

/**
 * The exact median. Many values (a step's medians over every actor, a million of them on a large funnel) go to a
 * selection in linear time: a full sort of them held the event loop for over 100 ms at the end of every funnel.
 */
export function median(values: number[]): number | null {
  const n = values.length;
  if (n <= 2) return n === 0 ? null : n === 1 ? values[0] : (values[0] + values[1]) / 2;
  if (n > fewValues.length) return medianOfMany(values);
  const sorted = fewValues;
  for (let i = 0; i < n; i++) {
    let j = i;
    for (; j > 0 && sorted[j - 1] > values[i]; j--) sorted[j] = sorted[j - 1];
    sorted[j] = values[i];
  }
  const middle = n >> 1;
  return n % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function mean(values: number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
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

/** Of the best runs, the one that started first: the run funnel paths and correlation read an actor's span from. */
export function earliestBestRun(kept: KeptRun[]): KeptRun | null {
  return bestRuns(kept).reduce<KeptRun | null>((first, run) => (first === null || run.reached[0] < first.reached[0] ? run : first), null);
}

/** The best of some runs: how many steps, and the conversion times of the runs that got that far. */
export function outcomeOf(kept: KeptRun[]): ActorOutcome {
  const best = bestRuns(kept);
  const steps = best[0]?.reached.length ?? 0;
  const averageSeconds: Array<number | null> = [null];
  const medianSeconds: Array<number | null> = [null];
  for (let step = 1; step < steps; step++) {
    const seconds = best.map((run) => (run.reached[step] - run.reached[step - 1]) / 1000);
    averageSeconds.push(mean(seconds));
    medianSeconds.push(median(seconds));
  }
  return { steps, averageSeconds, medianSeconds };
}

export function evaluateActor(events: ActorEvents, spec: FunnelSpec): ActorOutcome {
  return outcomeOf(keptRuns(events, spec));
}

/** One step of the insight: actors who reached at least it, and their conversion times from the step before. */
export interface StepSummary {
  count: number;
  averageConversionTime: number | null;
  medianConversionTime: number | null;
}

/**
 * The insight's steps, tallied one actor at a time. Counts are cumulative (an actor who reached step 3
 * counts at steps 1, 2 and 3); a step's average is the mean of its actors' own averages, its median
 * the median of their medians.
 */
export class StepTally {
  private readonly counts: number[];
  private readonly averages: number[][];
  private readonly medians: number[][];

  constructor(private readonly stepCount: number) {
    this.counts = new Array<number>(stepCount).fill(0);
    this.averages = Array.from({ length: stepCount }, () => []);
    this.medians = Array.from({ length: stepCount }, () => []);
  }

  add(outcome: ActorOutcome): void {
    for (let step = 0; step < Math.min(outcome.steps, this.stepCount); step++) {
      this.counts[step]++;
      const average = outcome.averageSeconds[step];
      const middle = outcome.medianSeconds[step];
      if (average !== null && average !== undefined) this.averages[step].push(average);
      if (middle !== null && middle !== undefined) this.medians[step].push(middle);
    }
  }

  steps(): StepSummary[] {
    return this.counts.map((count, step) => ({ count, averageConversionTime: mean(this.averages[step]), medianConversionTime: median(this.medians[step]) }));
  }
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
  const sameAsPrevious = steps.map((step, i) => i > 0 && step.event === steps[i - 1].event && JSON.stringify(step.rawProperties) === JSON.stringify(steps[i - 1].rawProperties));
  const exclusions = options.exclusions.map((e, j) => ({ bit: steps.length + j, fromStep: e.fromStep, toStep: e.toStep }));
  return { stepCount: steps.length, orderType: options.orderType, window: options.window, windowEnd, sameAsPrevious, exclusions };
}
