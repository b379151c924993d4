import { ActorEvents, FunnelSpec, KeptRun, keptRuns } from './funnel-evaluation';
import { BREAKDOWN_NULL, FunnelOptions } from './insight-query';

/**
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
  if (attribution.type !== 'all_events') return [{ value: valueAt(events, attributedIndex(events, spec, attribution)), runs: keptRuns(events, spec) }];
  const all = stepBits(spec);
  const values = new Set(events.values.filter((_, i) => events.masks[i] & all));
  return [...values].map((value) => ({ value, runs: keptRuns(eventsWithValue(events, value), spec) }));
}
