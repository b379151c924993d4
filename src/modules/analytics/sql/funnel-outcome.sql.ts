import type { Attribution } from '../model/funnel-breakdown';
import { FunnelSpec, UNIT_MS } from '../model/funnel-evaluation';
import type { FunnelActorsSelection } from '../model/insight-query';
import { BREAKDOWN_NULL } from '../model/insight-query';
import type { ChParams } from '../engine/ch-sql';

/**
 * A funnel evaluated inside ClickHouse, per actor, with array functions: the same meaning as
 * model/funnel-evaluation.ts (which states it, and against which a differential test holds this SQL), so
 * only one row per breakdown line (or per selected actor) leaves the engine instead of every actor's events.
 *
 * Input: a subquery with one row per actor, `actor`, `times` (ms, ascending) and `masks` (bit i for step i,
 * bit `stepCount + j` for exclusion j), and `values` (each event's breakdown value) when there is a property
 * breakdown. A run is an array `[windowEnd, reached0, reached1, …]`: the window's end first, so exclusions
 * and later steps read it without computing it again.
 */

/** What the SQL needs of a funnel: its evaluation spec and, with a property breakdown, the attribution. */
export interface FunnelOutcomeSpec extends FunnelSpec {
  attribution: Attribution | null;
}

/** The instant a run starting at `start` (ms) may last reach a step; months as Luxon adds them (whole ms, UTC). */
function windowEndSql(spec: FunnelSpec, start: string): string {
  const { interval, unit } = spec.window;
  if (unit === 'month') return `toFloat64(toUnixTimestamp64Milli(addMonths(fromUnixTimestamp64Milli(toInt64(floor(${start})), 'UTC'), ${interval})))`;
  return `(${start} + ${interval * UNIT_MS[unit]})`;
}

/** Ordered: step k is the first step-k event at or after step k-1 (strictly after when it repeats that step), in the window. */
function orderedRunSql(spec: FunnelSpec, start: string): string {
  const same = `[${spec.sameAsPrevious.map((s) => (s ? 1 : 0)).join(', ')}]`;
  const last = 'assumeNotNull(acc[-1])';
  const next = `arrayFirstOrNull((t, m) -> bitTest(m, k) AND (t > ${last} OR (t = ${last} AND ${same}[k + 1] = 0)) AND t <= assumeNotNull(acc[1]), ts, ms)`;
  return foldSteps(spec, start, next);
}

/** Strict: step k is the event exactly k places after the start. */
function strictRunSql(spec: FunnelSpec, start: string): string {
  const next = `if(bitTest(ms[${start} + k], k) AND ts[${start} + k] <= assumeNotNull(acc[1]), toNullable(ts[${start} + k]), NULL)`;
  return foldSteps(spec, start, next);
}

/** Steps 1… in turn, each found from the run so far (`acc`, ending in NULL once a step is missed), then the NULL cut off. */
function foldSteps(spec: FunnelSpec, start: string, next: string): string {
  const first = `[toNullable(${windowEndSql(spec, `ts[${start}]`)}), toNullable(ts[${start}])]`;
  const fold = `arrayFold((acc, k) -> if(acc[-1] IS NULL, acc, arrayPushBack(acc, ${next})), range(1, ${spec.stepCount}), ${first})`;
  return `arrayMap((x) -> assumeNotNull(x), arrayFilter((x) -> x IS NOT NULL, ${fold}))`;
}

/** Unordered: the run starts at step `first`'s event; every other step counts if it happened inside the window. */
function unorderedRunSql(spec: FunnelSpec, first: string, start: string): string {
  const t0 = `ts[${start}]`;
  const end = windowEndSql(spec, t0);
  const others = `arrayMap((s) -> if(s = ${first}, NULL, arrayFirstOrNull((t, m) -> bitTest(m, s) AND t >= ${t0} AND t <= ${end}, ts, ms)), range(${spec.stepCount}))`;
  return `arrayConcat([${end}, ${t0}], arraySort(arrayMap((x) -> assumeNotNull(x), arrayFilter((x) -> x IS NOT NULL, ${others}))))`;
}

/** Every run of the actor: one per first-step event (per event of any step for unordered funnels). */
function runsSql(spec: FunnelSpec): string {
  const startsOf = (bit: string) => `arrayFilter((i) -> bitTest(ms[i], ${bit}), arrayEnumerate(ms))`;
  if (spec.orderType === 'unordered') {
    const pairs = `arrayFlatten(arrayMap((f) -> arrayMap((i) -> (f, i), ${startsOf('f')}), range(${spec.stepCount})))`;
    return `arrayMap((fi) -> ${unorderedRunSql(spec, 'fi.1', 'fi.2')}, ${pairs})`;
  }
  const run = spec.orderType === 'strict' ? strictRunSql(spec, 'i') : orderedRunSql(spec, 'i');
  return `arrayMap((i) -> ${run}, ${startsOf('0')})`;
}

/** A run is dropped when an exclusion event falls strictly between its `from` step and its `to` step (or the window's end). */
function keptRunsSql(spec: FunnelSpec): string {
  if (spec.exclusions.length === 0) return 'runs';
  const excluded = spec.exclusions.map(({ bit, fromStep, toStep }) => {
    const before = `if(length(r) - 1 > ${toStep}, r[${toStep + 2}], r[1])`;
    return `(length(r) - 1 > ${fromStep} AND arrayExists((t, m) -> bitTest(m, ${bit}) AND t > r[${fromStep + 2}] AND t < ${before}, ts, ms))`;
  });
  return `arrayFilter((r) -> NOT (${excluded.join(' OR ')}), runs)`;
}

/** The exact median of an array, the mean of the two middle values when their number is even. */
function arrayMedianSql(values: string): string {
  return `(arrayReduce('quantileExactLow(0.5)', ${values}) + arrayReduce('quantileExactHigh(0.5)', ${values})) / 2`;
}

/**
 * Each actor's outcome (`steps`: how far their best run got; `averages[k]`, `medians[k]`: step k's conversion
 * seconds over the best runs) under each breakdown line (`line`: '' without a property breakdown).
 */
export function funnelOutcomesSql(spec: FunnelOutcomeSpec, sequences: string, p: ChParams): string {
  const seconds = 'arrayMap((r) -> (r[k + 2] - r[k + 1]) / 1000, best)';
  const perStep = (of: string) => `arrayMap((k) -> if(steps > k, ${of}, NULL), range(1, ${spec.stepCount}))`;
  return `SELECT actor, line, ${runsSql(spec)} AS runs, ${keptRunsSql(spec)} AS kept,
      arrayMax(arrayPushBack(arrayMap((r) -> length(r) - 1, kept), 0)) AS steps,
      arrayFilter((r) -> length(r) - 1 = steps, kept) AS best,
      ${perStep(`arrayAvg(${seconds})`)} AS averages, ${perStep(arrayMedianSql(seconds))} AS medians
    FROM (${linesSql(spec, sequences, p)})`;
}

/** Each actor's events under each line they count for: their attributed value's, or (all_events) each value's own events. */
function linesSql(spec: FunnelOutcomeSpec, sequences: string, p: ChParams): string {
  const { attribution } = spec;
  if (attribution === null) return `SELECT actor, '' AS line, times AS ts, masks AS ms FROM (${sequences})`;
  const allSteps = 2 ** spec.stepCount - 1;
  if (attribution.type === 'all_events') {
    const values = `arrayDistinct(arrayFilter((v, m) -> bitAnd(m, ${allSteps}) != 0, values, masks))`;
    return `SELECT actor, line, arrayFilter((t, v) -> v = line, times, values) AS ts, arrayFilter((m, v) -> v = line, masks, values) AS ms
      FROM (${sequences}) ARRAY JOIN ${values} AS line`;
  }
  const wanted = attribution.type === 'step' ? 2 ** (attribution.step ?? 0) : spec.orderType === 'unordered' || attribution.type === 'last_touch' ? allSteps : 1;
  const index = `${attribution.type === 'last_touch' ? 'arrayLastIndex' : 'arrayFirstIndex'}((m) -> bitAnd(m, ${wanted}) != 0, masks)`;
  return `SELECT actor, if(${index} = 0, ${p.add(BREAKDOWN_NULL, 'String')}, values[${index}]) AS line, times AS ts, masks AS ms FROM (${sequences})`;
}

/**
 * Per line: actors who entered, then per step how many reached at least it, the mean of their average
 * conversion times and the median of their medians (the first step has none).
 */
export function funnelStepsSql(spec: FunnelOutcomeSpec, sequences: string, p: ChParams): string {
  const steps = Array.from({ length: spec.stepCount }, (_, step) => step);
  const counts = steps.map((step) => `countIf(steps > ${step})`);
  const later = steps.slice(1);
  const reached = (step: number, aggregate: string) => `if(countIf(steps > ${step}) = 0, NULL, ${aggregate})`;
  const averages = later.map((step) => reached(step, `avgIf(averages[${step}], steps > ${step})`));
  const medians = later.map((step) => reached(step, `(quantileExactLowIf(0.5)(medians[${step}], steps > ${step}) + quantileExactHighIf(0.5)(medians[${step}], steps > ${step})) / 2`));
  return `SELECT line, count() AS actors, [${counts.join(', ')}] AS counts,
      [NULL, ${averages.join(', ')}] AS averages, [NULL, ${medians.join(', ')}] AS medians
    FROM (${funnelOutcomesSql(spec, sequences, p)}) WHERE steps > 0 GROUP BY line`;
}

/** The actors a persons request selects by step (reached at least a step, dropped right before it, or custom counts), with their line. */
export function funnelSelectedActorsSql(spec: FunnelOutcomeSpec, sequences: string, selection: FunnelActorsSelection, p: ChParams): string {
  return `SELECT actor, line FROM (${funnelOutcomesSql(spec, sequences, p)}) WHERE steps > 0 AND ${stepSelectionSql(selection, p)}`;
}

/** The SQL twin of `stepSelector`. */
function stepSelectionSql(selection: { step?: number; customSteps?: number[] }, p: ChParams): string {
  if (selection.customSteps && selection.customSteps.length > 0) return `steps IN ${p.add(selection.customSteps, 'Array(Int64)')}`;
  const step = selection.step ?? 1;
  return step > 0 ? `steps >= ${p.add(step, 'Int64')}` : `steps = ${p.add(-step - 1, 'Int64')}`;
}
