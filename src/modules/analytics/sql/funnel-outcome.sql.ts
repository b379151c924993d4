import { FunnelSpec, UNIT_MS } from '../model/funnel-evaluation';
import type { FunnelActorsSelection, FunnelOptions } from '../model/insight-query';
import { BREAKDOWN_NULL } from '../model/insight-query';
import type { ChParams } from '../engine/ch-sql';
import { actorSequencesSql, EVENT_INSTANT_MS, SequenceColumn, Stage, staged } from './event-scope.sql';

/**
 * A funnel evaluated inside ClickHouse, per actor, with array functions: the meaning stated in TypeScript by
 * model/funnel-evaluation.ts and the differential test's oracle, which holds this SQL to it, so only one row per
 * breakdown line (or per selected actor) leaves the engine instead of every actor's events.
 *
 * Input: each event's actor, step and exclusion bits (bit i for step i, bit `stepCount + j` for exclusion j) and
 * breakdown value, gathered per actor in time order (`sequencesSql`). An actor's runs are held column-wise, one
 * array per step: `reached_k[r]` is the instant run r reached step k (NULL when it did not), `ends[r]` its window's
 * end. Column-wise, each step is one pass over the runs; a run as an array of its own would be an allocation per
 * run and step.
 */

/** What the SQL needs of a funnel: its evaluation spec and, with a property breakdown, the attribution. */
export interface FunnelOutcomeSpec extends FunnelSpec {
  attribution: FunnelOptions['attribution'] | null;
}

const steps = (spec: FunnelSpec) => Array.from({ length: spec.stepCount }, (_, step) => step);
const reached = (step: number) => `reached_${step}`;

/** The instant a run starting at `start` (ms) may last reach a step; months as Luxon adds them (whole ms, UTC). */
function windowEndSql(spec: FunnelSpec, start: string): string {
  const { interval, unit } = spec.window;
  if (unit === 'month') return `toFloat64(toUnixTimestamp64Milli(addMonths(fromUnixTimestamp64Milli(toInt64(floor(${start})), 'UTC'), ${interval})))`;
  return `(${start} + ${interval * UNIT_MS[unit]})`;
}

/** The instants of an actor's events that match a bit (a step's, an exclusion's). */
const matching = (bit: number) => `arrayFilter((t, m) -> bitTest(m, ${bit}), ts, ms)`;

/** One `nextStages` search: into column `name`, for each instant of the array column `from`, the first of `candidates`. */
interface NextSearch {
  name: string;
  from: string;
  candidates: string;
  strictly: boolean;
}

/**
 * For each instant of the array column `from` (NULL as never), the first instant of `candidates` (ascending) at or
 * after it, or strictly after it: +inf when there is none. Both are sorted together once and each `from` entry takes
 * the next candidate to its right; a search per entry (`arrayFirst` over the actor's events in a lambda) copies the
 * events for every entry, quadratic in an actor's events (an actor with 4,000 events took a gigabyte). Several
 * searches share the stages, each in columns named after it.
 */
function nextStages(searches: NextSearch[]): Stage[] {
  // At one instant a candidate sorts after the entry (at or after) or before it (strictly after).
  const tagsOf = (search: NextSearch) => (search.strictly ? { entry: 1, candidate: 0 } : { entry: 0, candidate: 1 });
  const column = (search: NextSearch, part: string) => `${search.name}_${part}`;
  const each = (build: (search: NextSearch) => string) => searches.map(build);
  const sorted = (search: NextSearch, part: string) => `arraySort((x, v, g, i) -> (v, g, i), ${column(search, part)}, ${column(search, 'v')}, ${column(search, 'g')}, ${column(search, 'i')}) AS ${column(search, `s${part}`)}`;
  return [
    each((search) => `${search.candidates} AS ${column(search, 'c')}`),
    each((search) => {
      const { entry, candidate } = tagsOf(search);
      const c = column(search, 'c');
      return [
        `arrayConcat(arrayMap((x) -> ifNull(x, inf), ${search.from}), ${c}, [inf]) AS ${column(search, 'v')}`,
        `arrayConcat(arrayMap((x) -> ${entry}, ${search.from}), arrayMap((x) -> ${candidate}, ${c}), [${candidate}]) AS ${column(search, 'g')}`,
        `arrayConcat(arrayEnumerate(${search.from}), arrayMap((x) -> 0, ${c}), [0]) AS ${column(search, 'i')}`,
      ].join(', ');
    }),
    each((search) => ['v', 'g', 'i'].map((part) => sorted(search, part)).join(', ')),
    each((search) => `arrayReverseFill((v, g) -> g = ${tagsOf(search).candidate}, ${column(search, 'sv')}, ${column(search, 'sg')}) AS ${column(search, 'f')}`),
    each((search) => {
      const entries = (array: string) => `arrayFilter((x, g) -> g = ${tagsOf(search).entry}, ${array}, ${column(search, 'sg')})`;
      return `arraySort((v, i) -> i, ${entries(column(search, 'f'))}, ${entries(column(search, 'si'))}) AS ${search.name}`;
    }),
  ];
}

/** Each run's window end, from the instant it started. */
const endsStage = (spec: FunnelSpec): Stage => [`arrayMap((t) -> ${windowEndSql(spec, 't')}, ${reached(0)}) AS ends`];

/**
 * The actor's events extended by a sentinel at +inf that matches every bit (`xts`, `xms`), and where each instant's
 * events begin (`gs`) and end (`ge`): what `after` reads. NaN differs from every instant, +inf included, so the
 * sentinel ends its own group.
 */
function extendedStages(spec: FunnelSpec): Stage[] {
  const every = (2n ** BigInt(spec.stepCount + spec.exclusions.length) - 1n).toString();
  return [
    ['arrayPushBack(ts, inf) AS xts', `arrayPushBack(ms, ${every}) AS xms`],
    ['arrayMap((t, b) -> t != b, xts, arrayPushFront(arrayPopBack(xts), -inf)) AS gs', 'arrayMap((t, a) -> t != a, xts, arrayPushBack(arrayPopFront(xts), nan)) AS ge'],
  ];
}

/**
 * For every extended event at once: `values` (an array over the extended events whose entry depends only on the
 * event's instant) read at the first event matching `bit` at or after (or strictly after) that instant. Filled
 * from the right over the matching events, then made the same for every event of an instant; +inf when none.
 * Composing these follows a run step by step for all runs together in a few linear passes, where a search per run
 * sorts each actor's events once per step (3-step funnels at 10 M events: ordered 1.7 s against 2.5 s, unordered
 * 2.5 s against 3.8 s).
 */
function after(values: string, bit: number, strictly: boolean): string {
  const nextMatching = `arrayReverseFill((v, m) -> bitTest(m, ${bit}), ${values}, xms)`;
  return strictly
    ? `arrayReverseFill((v, e) -> e, arrayPushBack(arrayPopFront(${nextMatching}), inf), ge)`
    : `arrayFill((v, s) -> s, ${nextMatching}, gs)`;
}

/** An array over the events read for the runs: at the first-step events. */
const atStarts = (array: string) => `arrayFilter((x, m) -> bitTest(m, 0), ${array}, ms)`;

/**
 * The instant an ordered run starting at each event reaches step `step`, unbounded by its window, when `values`
 * is the extended instants: each step from the one before it (the same event kind as the step before counts only
 * strictly after it), composed from the last step back.
 */
function orderedChain(spec: FunnelSpec, values: string, step: number): string {
  let chain = values;
  for (let k = step; k >= 1; k--) chain = after(chain, k, spec.sameAsPrevious[k]);
  return chain;
}

/** Runs start at each first-step event: their first instants and window ends. */
function startsStages(spec: FunnelSpec): Stage[] {
  return [[`${matching(0)} AS ${reached(0)}`], endsStage(spec)];
}

/**
 * Ordered: step k is the first step-k event at or after step k-1 (strictly after when it repeats that step), in the
 * window. The instants only grow step by step, so a run is out of its window from its first step past the end on.
 */
function orderedStages(spec: FunnelSpec): Stage[] {
  return [...extendedStages(spec), steps(spec).slice(1).map((k) =>
    `arrayMap((n, end) -> if(n > end, NULL, toNullable(n)), ${atStarts(`arrayPopBack(${orderedChain(spec, 'xts', k)})`)}, ends) AS ${reached(k)}`)];
}

/** Strict: step k is the event exactly k places after the start (the events shifted by k, read at the starts). */
function strictStages(spec: FunnelSpec): Stage[] {
  return steps(spec).slice(1).map((k) => {
    const next = `if(prev IS NULL OR NOT bitTest(m, ${k}) OR t > end, NULL, toNullable(t))`;
    return [`arrayMap((prev, t, m, end) -> ${next}, ${reached(k - 1)}, ${atStarts(`arrayShiftLeft(ts, ${k})`)}, ${atStarts(`arrayShiftLeft(ms, ${k})`)}, ends) AS ${reached(k)}`];
  });
}

/**
 * Unordered: a run starts at each event of each step (`firsts`); every other step counts if it happened inside
 * the window, and step k of the run is the k-th earliest of those.
 */
function unorderedStages(spec: FunnelSpec): Stage[] {
  const byFirst = steps(spec).map((f) => matching(f));
  const firsts = `arrayConcat(${byFirst.map((times, f) => `arrayMap((x) -> ${f}, ${times})`).join(', ')})`;
  const atEach = steps(spec).map((s) => `${after('xts', s, false)} AS after_${s}`);
  const found = steps(spec).map((s) => `arrayConcat(${steps(spec).map((f) => `arrayFilter((x, m) -> bitTest(m, ${f}), arrayPopBack(after_${s}), ms)`).join(', ')}) AS next_${s}`);
  const inWindow = steps(spec).map((s) => `arrayMap((n, f, end) -> if(f = ${s} OR n > end, NULL, toNullable(n)), next_${s}, firsts, ends) AS found_${s}`);
  const args = steps(spec).map((s) => `x${s}`);
  const others = `arrayMap((${args.join(', ')}) -> arraySort(arrayFilter((x) -> x IS NOT NULL, [${args.join(', ')}])), ${steps(spec).map((s) => `found_${s}`).join(', ')}) AS others`;
  const later = steps(spec).slice(1).map((k) => `arrayMap((o) -> if(length(o) >= ${k}, o[${k}], NULL), others) AS ${reached(k)}`);
  return [[`arrayConcat(${byFirst.join(', ')}) AS ${reached(0)}`, `${firsts} AS firsts`], endsStage(spec), ...extendedStages(spec), atEach, found, inWindow, [others], later];
}

/** Every run's instants step by step, and how many steps it reached (`run_steps`). */
function runsStages(spec: FunnelSpec): Stage[] {
  const stages = spec.orderType === 'unordered' ? unorderedStages(spec) : [...startsStages(spec), ...(spec.orderType === 'strict' ? strictStages(spec) : orderedStages(spec))];
  const later = steps(spec).slice(1);
  const count = later.length === 0 ? `arrayMap((t) -> toUInt64(1), ${reached(0)})` : `arrayMap((${later.map((k) => `r${k}`).join(', ')}) -> toUInt64(1)${later.map((k) => ` + (r${k} IS NOT NULL)`).join('')}, ${later.map(reached).join(', ')})`;
  return [...stages.filter((stage) => stage.length > 0), [`${count} AS run_steps`]];
}

/**
 * A run is kept unless an exclusion event falls strictly between its `from` step and its `to` step (or the window's
 * end): the first exclusion event strictly after `from` comes before that bound.
 */
function keptStages(spec: FunnelSpec): Stage[] {
  if (spec.exclusions.length === 0) return [['arrayMap((s) -> true, run_steps) AS kept']];
  // Ordered runs follow the exclusion from their `from` step as they follow a step; other orders search per run.
  const next = spec.orderType === 'ordered'
    ? [spec.exclusions.map(({ bit, fromStep }, j) => `${atStarts(`arrayPopBack(${orderedChain(spec, after('xts', bit, true), fromStep)})`)} AS excluded_after_${j}`)]
    : nextStages(spec.exclusions.map(({ bit, fromStep }, j) => ({ name: `excluded_after_${j}`, from: reached(fromStep), candidates: matching(bit), strictly: true })));
  const excluded = spec.exclusions.map(({ fromStep, toStep }, j) =>
    `arrayMap((s, x, rt, end) -> s > ${fromStep} AND x < if(s > ${toStep}, assumeNotNull(rt), end), run_steps, excluded_after_${j}, ${reached(toStep)}, ends)`);
  const flags = excluded.map((_, j) => `x${j}`);
  return [...next, [`arrayMap((${flags.join(', ')}) -> NOT (${flags.join(' OR ')}), ${excluded.join(', ')}) AS kept`]];
}

/** The exact median of an array, the mean of the two middle values when their number is even. */
function arrayMedianSql(values: string): string {
  return `(arrayReduce('quantileExactLow(0.5)', ${values}) + arrayReduce('quantileExactHigh(0.5)', ${values})) / 2`;
}

/**
 * Each actor's outcome under each breakdown line (`line`: '' without a property breakdown): `steps`, how far
 * their best kept run got; `averages[k]` and `medians[k]`, step k's conversion seconds over the best runs.
 */
export function funnelOutcomesSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, p: ChParams): string {
  const seconds = (k: number) => `arrayFilter((d, b) -> b, arrayMap((a, c) -> (assumeNotNull(c) - assumeNotNull(a)) / 1000, ${reached(k - 1)}, ${reached(k)}), best)`;
  const perStep = (of: (k: number) => string) => `[${steps(spec).slice(1).map((k) => `if(steps > ${k}, ${of(k)}, NULL)`).join(', ')}]`;
  const outcomes = staged([
    ...runsStages(spec),
    ...keptStages(spec),
    ['arrayMap((s, k) -> if(k, s, 0), run_steps, kept) AS kept_steps'],
    ['arrayMax(arrayPushBack(kept_steps, 0)) AS steps'],
    ['arrayMap((s) -> s = steps AND steps > 0, kept_steps) AS best'],
    [`${perStep((k) => `arrayAvg(${seconds(k)})`)} AS averages`, `${perStep((k) => arrayMedianSql(seconds(k)))} AS medians`],
  ], linesSql(spec, input, p));
  if (!input.personLine) return outcomes;
  // Only actors who entered are joined to their person: the join carries no event arrays.
  return `SELECT o.* EXCEPT (line), if(o.line = '', ${input.personLine.value}, o.line) AS line
    FROM (SELECT * FROM (${outcomes}) WHERE steps > 0) AS o LEFT JOIN ${input.personLine.persons} AS pp ON pp.id = o.actor_id`;
}

/** Where a funnel's events come from: SQL over `e` for the actor, each event's step and exclusion bits and breakdown value. */
export interface FunnelEventsInput {
  actor: string;
  mask: string;
  value: string | null;
  from: string;
  where: string[];
  /** The actor as the events hold it (`actor_id`) beside its text, to join the outcomes on (event correlation). */
  actorId?: boolean;
  marked?: string | null;
  /**
   * A breakdown by the actor's own person properties: the same for all their events, so read once per actor after
   * the funnel (SQL over the `persons` subquery, joined as `pp`) instead of joined to every event.
   */
  personLine?: { persons: string; value: string };
}

/** The narrowest unsigned integer type that holds the step and exclusion bits: less to gather per event. */
function maskType(spec: FunnelSpec): string {
  const bits = spec.stepCount + spec.exclusions.length;
  return bits <= 8 ? 'UInt8' : bits <= 16 ? 'UInt16' : bits <= 32 ? 'UInt32' : 'UInt64';
}

/**
 * Each actor's events in time order (`times`, `masks`) and, with a property breakdown, the line they count for:
 * the value of the attributed event (`line`; first_touch: the first first-step event, of any step when unordered;
 * last_touch: the last step event; step: the first event of that step; PostHog's null marker when there is none),
 * read by an aggregate keyed on (time, UUID), or for all_events each event's value (`values`). Events at one instant
 * are ordered by their bits only in a strict funnel, which counts events by position (so the steps they match come
 * in the funnel's order, and two events alike in time and bits are alike to it): everywhere else a step is found by
 * its instant, and the first of several events at one instant gives the same instant.
 */
function sequencesSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, p: ChParams): string {
  const { attribution } = spec;
  const columns: SequenceColumn[] = [{ name: 'masks', sql: `to${maskType(spec)}(${input.mask})`, bits: spec.stepCount + spec.exclusions.length }];
  const perActor: Array<{ name: string; sql: string }> = [];
  if (input.marked) {
    columns.push({ name: 'marks', sql: `ifNull(${input.marked}, 0)`, perEventOnly: true });
    perActor.push({ name: 'marked_times', sql: 'groupArrayIf(at, column_marks != 0)' });
  }
  if (attribution?.type === 'all_events') columns.push({ name: 'values', sql: input.value! });
  else if (attribution) {
    if (!input.personLine) columns.push({ name: 'value', sql: input.value!, perEventOnly: true });
    const allSteps = 2 ** spec.stepCount - 1;
    const condition = attribution.type === 'step' ? `bitTest(column_masks, ${attribution.step ?? 0})`
      : spec.orderType === 'unordered' || attribution.type === 'last_touch' ? `bitAnd(column_masks, ${allSteps}) != 0` : 'bitTest(column_masks, 0)';
    const pick = attribution.type === 'last_touch' ? 'argMaxIf' : 'argMinIf';
    // With the value read per actor later, the line is left '' here for actors who have an attributed event.
    const value = input.personLine ? "''" : `${pick}(column_value, event_order, ${condition})`;
    perActor.push({ name: 'line', sql: `if(countIf(${condition}) = 0, ${p.add(BREAKDOWN_NULL, 'String')}, ${value})` });
  }
  return actorSequencesSql(input.actor, columns, input.from, input.where, { ties: spec.orderType === 'strict' ? { column: 'masks' } : 'any', perActor, actorId: Boolean(input.personLine || input.actorId) });
}

/** Each actor's events under each line they count for: their attributed value's, or (all_events) each value's own events. */
function linesSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, p: ChParams): string {
  const sequences = sequencesSql(spec, input, p);
  const { attribution } = spec;
  if (attribution === null) return `SELECT actor, '' AS line, times AS ts, masks AS ms${input.actorId ? ', actor_id' : ''}${input.marked ? ', marked_times AS mts' : ''} FROM (${sequences})`;
  if (attribution.type !== 'all_events') return `SELECT actor, line, times AS ts, masks AS ms${input.personLine ? ', actor_id' : ''} FROM (${sequences})`;
  const values = `arrayDistinct(arrayFilter((v, m) -> bitAnd(m, ${2 ** spec.stepCount - 1}) != 0, values, masks))`;
  return `SELECT actor, line, arrayFilter((t, v) -> v = line, times, values) AS ts, arrayFilter((m, v) -> v = line, masks, values) AS ms
    FROM (${sequences}) ARRAY JOIN ${values} AS line`;
}

/**
 * Per line: actors who entered, then per step how many reached at least it, the mean of their average
 * conversion times and the median of their medians (the first step has none).
 */
/** The breakdown lines a read leaves out (`ranked`, the shown ones), tallying every other line as one Other line (`line`, its text). */
export interface OtherLine {
  ranked: string[];
  line: string;
}

/** The outcomes a line read tallies: each line's own, or (with `other`) every line but the ranked ones, as the Other line. */
function tallied(outcomes: string, other: OtherLine | undefined, p: ChParams): string {
  if (!other) return outcomes;
  // Filtered in a subquery of its own: a SELECT's alias named `line` would be what its own WHERE reads.
  return `SELECT * REPLACE (${p.add(other.line, 'String')} AS line) FROM (SELECT * FROM (${outcomes}) WHERE NOT has(${p.add(other.ranked, 'Array(String)')}, line))`;
}

export function stepLinesSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, p: ChParams, other?: OtherLine): string {
  const counts = steps(spec).map((step) => `countIf(steps > ${step})`);
  const later = steps(spec).slice(1);
  const reached = (step: number, aggregate: string) => `if(countIf(steps > ${step}) = 0, NULL, ${aggregate})`;
  const averages = later.map((step) => reached(step, `avgIf(averages[${step}], steps > ${step})`));
  const medians = later.map((step) => reached(step, `(quantileExactLowIf(0.5)(medians[${step}], steps > ${step}) + quantileExactHighIf(0.5)(medians[${step}], steps > ${step})) / 2`));
  return `SELECT line, count() AS actors, [${counts.join(', ')}] AS counts,
      [NULL${averages.map((a) => `, ${a}`).join('')}] AS averages, [NULL${medians.map((m) => `, ${m}`).join('')}] AS medians
    FROM (${tallied(funnelOutcomesSql(spec, input, p), other, p)}) WHERE steps > 0 GROUP BY line`;
}

/** The actors a persons request selects by step (reached at least a step, dropped right before it, or custom counts), with their line. */
export function stepActorsSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, selection: FunnelActorsSelection, p: ChParams): string {
  return `SELECT actor, line FROM (${funnelOutcomesSql(spec, input, p)}) WHERE steps > 0 AND ${stepSelectionSql(selection, p)}`;
}

/** The SQL twin of `stepSelector`. */
function stepSelectionSql(selection: { step?: number; customSteps?: number[] }, p: ChParams): string {
  if (selection.customSteps && selection.customSteps.length > 0) return `steps IN ${p.add(selection.customSteps, 'Array(Int64)')}`;
  const step = selection.step ?? 1;
  return step > 0 ? `steps >= ${p.add(step, 'Int64')}` : `steps = ${p.add(-step - 1, 'Int64')}`;
}

/**
 * Funnel trends, per actor: the entrance period of each kept run (the period holding its first step, `period`
 * turns an instant in ms into its bucket's text) and, per period, the most steps a run that started in it reached.
 */
function entrancePeriodsSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, period: (ms: string) => string, p: ChParams): string {
  // maxMap over the kept runs' (period, steps): the best per period in one pass, not a filter of every run per period.
  const periods = staged([
    [`arrayFilter((q, k) -> k, arrayMap((t) -> ${period('t')}, ${reached(0)}), kept) AS run_periods`, 'arrayFilter((s, k) -> k, run_steps, kept) AS kept_run_steps'],
    ["arrayReduce('maxMap', [run_periods], [kept_run_steps]) AS best_by_period"],
  ], funnelOutcomesSql(spec, input, p));
  return `SELECT actor, line, steps, best_by_period.1 AS periods, best_by_period.2 AS period_steps FROM (${periods}) WHERE steps > 0`;
}

/** The 0-based steps between which funnel trends and time to convert measure conversion. */
export interface ConversionSteps {
  fromStep: number;
  toStep: number;
}

/** Per line: actors who entered, and per entrance period (`[periods, counts]`) how many reached `from`, and `to`. */
export function trendLinesSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, period: (ms: string) => string, between: ConversionSteps, p: ChParams, other?: OtherLine): string {
  const reached = (step: number) => `sumMap(periods, arrayMap((s) -> toUInt64(s > ${step}), period_steps))`;
  return `SELECT line, count() AS actors, ${reached(between.fromStep)} AS entered, ${reached(between.toStep)} AS converted
    FROM (${tallied(entrancePeriodsSql(spec, input, period, p), other, p)}) GROUP BY line`;
}

/** The actors of one funnel trends point: who converted from `from` to `to` in the period's runs, or who dropped off between. */
export function trendActorsSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, period: (ms: string) => string, point: ConversionSteps & { period: string; dropOff: boolean }, p: ChParams): string {
  const steps = `period_steps[indexOf(periods, ${p.add(point.period, 'String')})]`;
  const selected = point.dropOff ? `${steps} > ${point.fromStep} AND ${steps} <= ${point.toStep}` : `${steps} > ${point.toStep}`;
  return `SELECT actor, line FROM (${entrancePeriodsSql(spec, input, period, p)}) WHERE ${selected}`;
}

/**
 * Time to convert, grouped by whole second: each actor who reached `to` counts the sum of their average step
 * times from `from` to `to`; a group holds how many, their least and greatest, and their sum.
 */
export function conversionSecondsSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, between: ConversionSteps, p: ChParams): string {
  const seconds = `arraySum((x) -> assumeNotNull(x), arraySlice(averages, ${between.fromStep + 1}, ${between.toStep - between.fromStep}))`;
  return `SELECT floor(seconds) AS second, count() AS actors, min(seconds) AS least, max(seconds) AS greatest, sum(seconds) AS total FROM (
      SELECT ${seconds} AS seconds FROM (${funnelOutcomesSql(spec, input, p)}) WHERE steps > ${between.toStep})
    GROUP BY second`;
}

/**
 * Funnel correlation, per actor who entered: converted (reached the last step) or not, and the span of their funnel
 * (from the first step of their earliest best run, strictly, to its last step when they converted, or else to the
 * end of its window, never past the query's range), which the events correlated must fall strictly inside.
 */
function correlationSpansSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, rangeEnd: number, p: ChParams): string {
  const earliest = 'arrayFirstIndex((r, b) -> b AND r = span_first, reached_0, best)';
  const windowEnd = `least(${windowEndSql(spec, 'span_first')}, ${p.add(rangeEnd, 'Float64')})`;
  const spans = staged([
    [`steps = ${spec.stepCount} AS converted`, 'arrayMin(arrayFilter((r, b) -> b, reached_0, best)) AS span_first'],
    [`if(converted, assumeNotNull(${reached(spec.stepCount - 1)}[${earliest}]), ${windowEnd}) AS span_end`],
  ], funnelOutcomesSql(spec, input, p));
  return `SELECT * FROM (${spans}) WHERE steps > 0`;
}

/** Where event correlation's candidates come from: SQL over `e` for each event's actor and name, FROM and WHERE (the candidates only). */
export interface CandidateEvents {
  actor: string;
  name: string;
  from: string;
  where: string[];
}

/**
 * Event correlation: per candidate event name seen inside the span of some actor's funnel (`kind` 1), how many
 * actors who converted and who did not saw it at least once; and (`kind` 0) how many converted and not. The
 * candidates are joined to the actors' spans, as PostHog joins events to its funnel actors: gathered into each
 * actor's arrays beside the steps instead, they made the group-by over a million actors spill to disk at 10 M
 * events (4.6 s against 2.9 s). Every actor who entered counts in the totals through the right join, with or
 * without candidates; a candidate outside its actor's span counts only there (as the name '', which no event has).
 */
export function correlationEventsSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, candidates: CandidateEvents, rangeEnd: number, p: ChParams): string {
  // The instant as actor sequences read it, so a candidate and a span's bounds compare like for like.
  const events = `SELECT ${candidates.actor} AS candidate_actor, ${EVENT_INSTANT_MS} AS at, ${candidates.name} AS candidate
    FROM ${candidates.from} WHERE ${candidates.where.join(' AND ')}`;
  const spans = `SELECT actor_id, converted, span_first, span_end FROM (${correlationSpansSql(spec, { ...input, actorId: true }, rangeEnd, p)})`;
  // grouping() is 1 for a column the grouping set leaves out (the SQL standard's meaning, ClickHouse's default).
  return `SELECT grouping(name) = 0 AS kind, if(c.at > s.span_first AND c.at < s.span_end, c.candidate, '') AS name,
      uniqExactIf(s.actor_id, s.converted) AS success, uniqExactIf(s.actor_id, NOT s.converted) AS failure
    FROM (${events}) AS c RIGHT JOIN (${spans}) AS s ON s.actor_id = c.candidate_actor
    GROUP BY GROUPING SETS ((name), ()) HAVING NOT (kind AND name = '')`;
}

/** The actors of a correlation row: converted or not (or both, null), with a marked event inside their span when marks are read. */
export function correlationActorsSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, rangeEnd: number, converted: boolean | null, p: ChParams): string {
  const where = [...(converted === null ? [] : [converted ? 'converted' : 'NOT converted']), ...(input.marked ? ['arrayExists((t) -> t > span_first AND t < span_end, mts)'] : [])];
  return `SELECT actor, converted FROM (${correlationSpansSql(spec, input, rangeEnd, p)})${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

/** Which of a funnel's actors funnel paths read, and the span of their events: see `funnelSpansSql`. */
export interface FunnelPathSpan {
  type: 'funnel_path_after_step' | 'funnel_path_before_step' | 'funnel_path_between_steps';
  /** 1-based; negative: the actors who dropped off right before step -step. */
  step: number;
}

/**
 * Funnel paths: the actors at the funnel step (reached it, or dropped off right before it for a negative step), each
 * with the span of instants (`span_from`, `span_to`, ms, inclusive) their path reads, taken from the earliest of their
 * best runs: from the step on, up to it, or between it and the step before; a drop-off's from their last step on.
 */
export function funnelSpansSql(spec: FunnelOutcomeSpec, input: FunnelEventsInput, span: FunnelPathSpan, p: ChParams): string {
  const at = (step: string) => `assumeNotNull([${steps(spec).map((k) => `${reached(k)}[best_run]`).join(', ')}][${step}])`;
  const bounds = span.step < 0 ? [at('steps'), 'inf']
    : span.type === 'funnel_path_after_step' ? [at(String(span.step)), 'inf']
    : span.type === 'funnel_path_before_step' ? ['-inf', at(String(span.step))]
    : [at(String(span.step - 1)), at(String(span.step))];
  const spans = staged([
    ['arrayMin(arrayFilter((r, b) -> b, reached_0, best)) AS first_best'],
    ['arrayFirstIndex((r, b) -> b AND r = first_best, reached_0, best) AS best_run'],
  ], `SELECT * FROM (${funnelOutcomesSql(spec, input, p)}) WHERE steps > 0 AND ${stepSelectionSql({ step: span.step }, p)}`);
  return `SELECT actor, toFloat64(${bounds[0]}) AS span_from, toFloat64(${bounds[1]}) AS span_to FROM (${spans})`;
}
