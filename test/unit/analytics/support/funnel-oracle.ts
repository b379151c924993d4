import { ActorEvents, FunnelSpec, KeptRun, keptRuns, StepSummary } from '../../../../src/modules/analytics/model/funnel-evaluation';
import { BREAKDOWN_NULL, FunnelOptions } from '../../../../src/modules/analytics/model/insight-query';

/**
 * A funnel's outcome stated one actor at a time, from the runs of model/funnel-evaluation.ts: what the engine's SQL
 * (sql/funnel-outcome.sql.ts) computes for every actor at once, and what the differential test holds it to. The
 * actor's result is their best run; conversion times are averaged (and taken the median of) over every run that
 * reached that best; a step's average is the mean of its actors' averages, its median the exact median of theirs.
 */

export interface ActorOutcome {
  /** Steps reached by the best run (0: no run counted, e.g. every run was excluded). */
  steps: number;
  /** Per step i ≥ 1 reached: mean and median seconds from step i-1 over the best runs; index 0 is unused. */
  averageSeconds: Array<number | null>;
  medianSeconds: Array<number | null>;
}

/** The exact median: the middle value, or the mean of the two middle ones. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function mean(values: number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** The runs that reached the most steps (none when there are no runs). */
function bestRuns(kept: KeptRun[]): KeptRun[] {
  const steps = kept.reduce((best, run) => Math.max(best, run.reached.length), 0);
  return kept.filter((run) => run.reached.length === steps && steps > 0);
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
  return outcomeOf(keptRuns(inFunnelOrder(events), spec));
}

/**
 * Events in the order the engine reads them for a funnel: by time, then by their bits, so events at one instant
 * come in the order of the steps they match (only a strict funnel, which counts places, can tell). Breakdown
 * attribution is not read in this order but by time, then UUID.
 */
export function inFunnelOrder<E extends ActorEvents>(events: E): E {
  const order = events.times.map((_, i) => i).sort((a, b) => events.times[a] - events.times[b] || events.masks[a] - events.masks[b] || a - b);
  const reordered = { ...events } as Record<string, unknown>;
  for (const [key, value] of Object.entries(reordered)) if (Array.isArray(value) && value.length === order.length) reordered[key] = order.map((i) => value[i]);
  return reordered as E;
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


/**
 * Breakdown attribution:
 * Which breakdown value an actor's funnel counts under (`breakdown_attribution_type`). first_touch: the
 * value on the actor's first event of the first step (of any step for unordered funnels); last_touch:
 * the value on their last step event; step: the value on their first event of step N (the null marker
 * when they never did it); all_events: the funnel is run once per value, over only the events that
 * carry it, so an actor may count under several values.
 */

/** The attribution type, and for `step` the 0-based step whose value counts. */
export type Attribution = FunnelOptions['attribution'];

/** An actor's events with the breakdown value each carries. */
export interface ActorEventsWithValues extends ActorEvents {
  values: string[];
}

const stepBits = (spec: FunnelSpec) => (1 << spec.stepCount) - 1;

function valueAt(events: ActorEventsWithValues, index: number): string {
  return index < 0 ? BREAKDOWN_NULL : (events.values[index] ?? BREAKDOWN_NULL);
}

/** The position of the event whose value an actor carries, or -1 when they have none. */
function attributedIndex(events: ActorEventsWithValues, spec: FunnelSpec, attribution: Attribution): number {
  const all = stepBits(spec);
  if (attribution.type === 'last_touch') {
    for (let p = events.masks.length - 1; p >= 0; p--) if (events.masks[p] & all) return p;
    return -1;
  }
  const wanted = attribution.type === 'step' ? 1 << (attribution.step ?? 0) : spec.orderType === 'unordered' ? all : 1;
  return events.masks.findIndex((mask) => (mask & wanted) !== 0);
}

/** The events carrying one value: what an all_events breakdown evaluates for that value. */
function eventsWithValue(events: ActorEventsWithValues, value: string): ActorEventsWithValues {
  const keep = events.values.map((v, i) => (v === value ? i : -1)).filter((i) => i >= 0);
  return { times: keep.map((i) => events.times[i]), masks: keep.map((i) => events.masks[i]), values: keep.map(() => value) };
}

interface AttributedRuns {
  value: string;
  runs: KeptRun[];
}

/** The runs of an actor under each breakdown value they count for. */
export function runsByBreakdown(events: ActorEventsWithValues, spec: FunnelSpec, attribution: Attribution): AttributedRuns[] {
  if (attribution.type !== 'all_events') return [{ value: valueAt(events, attributedIndex(events, spec, attribution)), runs: keptRuns(inFunnelOrder(events), spec) }];
  const all = stepBits(spec);
  const values = new Set(events.values.filter((_, i) => events.masks[i] & all));
  return [...values].map((value) => ({ value, runs: keptRuns(inFunnelOrder(eventsWithValue(events, value)), spec) }));
}

/** An actor's time from step `from` to step `to` (0-based), or null when they did not reach `to`. */
export function conversionSeconds(outcome: ActorOutcome, from: number, to: number): number | null {
  if (outcome.steps < to + 1) return null;
  let total = 0;
  for (let step = from + 1; step <= to; step++) {
    const seconds = outcome.averageSeconds[step];
    if (seconds === null || seconds === undefined) return null;
    total += seconds;
  }
  return total;
}

/** An actor's best step count per entrance period (the period holding a run's first step), from the runs that started in it. */
export function stepsByEntrancePeriod(runs: KeptRun[], periodOf: (at: number) => string): Map<string, number> {
  const best = new Map<string, number>();
  for (const run of runs) {
    const period = periodOf(run.reached[0]);
    best.set(period, Math.max(best.get(period) ?? 0, run.reached.length));
  }
  return best;
}

/** Whether an actor's steps in an entrance period put them among a trends point's persons. */
export function trendsActorSelected(steps: number, fromStep: number, toStep: number, dropOff: boolean): boolean {
  return dropOff ? steps >= fromStep + 1 && steps < toStep + 1 : steps >= toStep + 1;
}
