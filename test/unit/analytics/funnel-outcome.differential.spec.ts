import fc from 'fast-check';
import { DateTime } from 'luxon';
import { ChParams } from '../../../src/modules/analytics/engine/ch-sql';
import { eventsInSpan, funnelSpan } from '../../../src/modules/analytics/model/funnel-correlation';
import { bucketKey, intervalStart } from '../../../src/modules/analytics/model/insight-dates';
import { bucketSql, bucketTextSql } from '../../../src/modules/analytics/sql/event-scope.sql';
import { earliestBestRun, FunnelOrderType, KeptRun, keptRuns, StepSummary, stepSelector, UNIT_MS } from '../../../src/modules/analytics/model/funnel-evaluation';
import { conversionSecondsSql, correlationActorsSql, correlationEventsSql, FunnelEventsInput, FunnelOutcomeSpec, FunnelPathSpan, funnelSpansSql, stepActorsSql, stepLinesSql, trendActorsSql, trendLinesSql } from '../../../src/modules/analytics/sql/funnel-outcome.sql';
import {
  ActorEventsWithValues, Attribution, conversionSeconds, inFunnelOrder, outcomeOf, runsByBreakdown, stepsByEntrancePeriod, StepTally, trendsActorSelected,
} from './support/funnel-oracle';
import { scratchEngine } from './support/scratch-engine';

/**
 * The funnel as ClickHouse evaluates it (array functions per actor) against the TypeScript statement of the same
 * meaning (the runs of model/funnel-evaluation.ts, outcomes and attribution in support/funnel-oracle.ts): random journeys, with ties, repeated steps, exclusions,
 * every order type and attribution, give the same lines (actors, step counts, conversion times) and select the same
 * persons. FUNNEL_RUNS scales the number of runs (60: about 35 s).
 */

const RUNS = Number(process.env.FUNNEL_RUNS ?? 60);
/** The funnel's events as the engine reads them: each one's actor, bits and breakdown value. */
const EVENTS: FunnelEventsInput = {
  actor: 'e.actor', mask: 'e.mask', value: 'e.value', where: ['1'],
  from: `(SELECT actor, uuid, fromUnixTimestamp64Micro(micros, 'UTC') AS timestamp, mask, value, name FROM events) AS e`,
};
const VALUES = ['a', 'b', 'c'];
const NAMES = ['x', 'y', 'z'];
/** Where the query's range ends: inside the journeys, so that some spans are cut by it. */
const RANGE_END = Date.UTC(2024, 0, 31, 22) + 20 * 600_000;

interface Journey {
  actor: string;
  times: number[];
  masks: number[];
  values: string[];
  names: string[];
  uuids: string[];
}

const specs = fc.integer({ min: 2, max: 4 }).chain((stepCount) =>
  fc.record({
    stepCount: fc.constant(stepCount),
    orderType: fc.constantFrom<FunnelOrderType>('ordered', 'strict', 'unordered'),
    window: fc.record({ interval: fc.integer({ min: 1, max: 20 }), unit: fc.constantFrom('second' as const, 'minute' as const, 'hour' as const, 'month' as const) }),
    sameAsPrevious: fc.array(fc.boolean(), { minLength: stepCount, maxLength: stepCount }).map((same) => same.map((s, i) => i > 0 && s)),
    exclusions: fc.array(fc.tuple(fc.integer({ min: 0, max: stepCount - 1 }), fc.integer({ min: 0, max: stepCount - 1 })), { maxLength: 2 })
      .map((pairs) => pairs.filter(([a, b]) => a < b).map(([fromStep, toStep], j) => ({ bit: stepCount + j, fromStep, toStep }))),
    attribution: fc.option(fc.record({ type: fc.constantFrom('first_touch' as const, 'last_touch' as const, 'all_events' as const, 'step' as const), step: fc.integer({ min: 0, max: stepCount - 1 }) })),
  }).map((raw): FunnelOutcomeSpec => {
    const { interval, unit } = raw.window;
    const windowEnd = unit === 'month' ? (start: number) => monthLater(start, interval) : (start: number) => start + interval * UNIT_MS[unit];
    // An unordered funnel's exclusions span the whole funnel (the parser refuses others).
    const exclusions = raw.orderType === 'unordered' ? raw.exclusions.map((e) => ({ ...e, fromStep: 0, toStep: stepCount - 1 })) : raw.exclusions;
    return { ...raw, exclusions, windowEnd, attribution: raw.attribution as Attribution | null };
  }),
);

/** Month windows as funnelSpecOf adds them. */
const monthLater = (start: number, months: number) => DateTime.fromMillis(start, { zone: 'utc' }).plus({ months }).toMillis();

/**
 * Events `unit` ms apart (a second, or ten minutes so that runs start in different hours), often at the same instant
 * (ties, ordered by UUID text), some at fractions of a ms as stored; bits for 4 steps and 2 exclusions.
 */
const journey = (actor: string, unit: number) =>
  fc.array(fc.record({ at: fc.integer({ min: 0, max: 40 }), fraction: fc.constantFrom(0, 0.25), mask: fc.integer({ min: 0, max: 63 }), value: fc.constantFrom(...VALUES), name: fc.constantFrom(...NAMES), uuid: fc.uuid() }), { maxLength: 12 })
    .map((events): Journey => {
      const base = Date.UTC(2024, 0, 31, 22);
      const timed = events.map((e) => ({ ...e, time: base + e.at * unit + e.fraction }));
      const sorted = timed.sort((a, b) => a.time - b.time || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
      return { actor, times: sorted.map((e) => e.time), masks: sorted.map((e) => e.mask), values: sorted.map((e) => e.value), names: sorted.map((e) => e.name), uuids: sorted.map((e) => e.uuid) };
    });
const journeys = fc.tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom(1000, 600_000))
  .chain(([count, unit]) => fc.tuple(...Array.from({ length: count }, (_, i) => journey(`actor-${i}`, unit))));

interface Line {
  actors: number;
  steps: StepSummary[];
}

/** The TypeScript evaluation of each actor, tallied per line as the funnel service tallied it. */
function expectedLines(spec: FunnelOutcomeSpec, data: Journey[]): Map<string, Line> {
  const tallies = new Map<string, { actors: number; steps: StepTally }>();
  for (const actor of data) for (const { line, steps } of actorLines(spec, actor)) {
    if (steps.steps === 0) continue;
    const tally = tallies.get(line) ?? { actors: 0, steps: new StepTally(spec.stepCount) };
    tally.actors++;
    tally.steps.add(steps);
    tallies.set(line, tally);
  }
  return new Map([...tallies].map(([line, t]) => [line, { actors: t.actors, steps: t.steps.steps() }]));
}

function actorLines(spec: FunnelOutcomeSpec, actor: Journey) {
  const events: ActorEventsWithValues = { times: actor.times, masks: actor.masks, values: actor.values };
  if (spec.attribution === null) return [withOutcome('', keptRuns(inFunnelOrder(events), spec))];
  return runsByBreakdown(events, spec, spec.attribution).map(({ value, runs }) => withOutcome(value, runs));
}

function withOutcome(line: string, runs: KeptRun[]) {
  return { line, runs, steps: outcomeOf(runs) };
}

/** Funnel trends by hour or day in a zone with a half-hour offset, so that buckets are local. */
const periodings = fc.record({ interval: fc.constantFrom<'hour' | 'day'>('hour', 'day'), zone: fc.constantFrom('UTC', 'Asia/Kolkata') });

function periodSql(periods: { interval: 'hour' | 'day'; zone: string }, p: ChParams): (ms: string) => string {
  const zone = p.add(periods.zone, 'String');
  return (ms) => bucketTextSql(bucketSql(periods.interval, 0, zone, `fromUnixTimestamp64Milli(toInt64(floor(${ms})))`));
}

const periodOf = (periods: { interval: 'hour' | 'day'; zone: string }) => (at: number) => bucketKey(intervalStart(DateTime.fromMillis(at, { zone: periods.zone }), periods.interval, 0));

/** Per line, per entrance period: how many actors reached `from`, and `to` (periods where none did left out, as sumMap leaves them). */
function expectedTrends(spec: FunnelOutcomeSpec, data: Journey[], between: { fromStep: number; toStep: number }, periods: (at: number) => string) {
  const lines = new Map<string, { actors: number; entered: Map<string, number>; converted: Map<string, number> }>();
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const actor of data) for (const { line, runs, steps } of actorLines(spec, actor)) {
    if (steps.steps === 0) continue;
    const tally = lines.get(line) ?? { actors: 0, entered: new Map(), converted: new Map() };
    tally.actors++;
    for (const [period, reached] of stepsByEntrancePeriod(runs, periods)) {
      if (reached > between.fromStep) bump(tally.entered, period);
      if (reached > between.toStep) bump(tally.converted, period);
    }
    lines.set(line, tally);
  }
  return lines;
}

const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)));

describe('funnel evaluation in ClickHouse, differential against the TypeScript evaluation', () => {
  const engine = scratchEngine(
    'CREATE TABLE events (actor String, uuid UUID, micros Int64, mask Int64, value String, name String) ENGINE = Memory',
    'CREATE TABLE people (id String, properties String) ENGINE = Memory',
  );
  const rows = engine.rows;

  async function load(data: Journey[]): Promise<void> {
    // Stored newest first, so an order the engine does not impose (ties by UUID) is not there by chance.
    const events = data.flatMap((j) => j.times.map((time, i) => ({ actor: j.actor, uuid: j.uuids[i], micros: time * 1000, mask: j.masks[i], value: j.values[i], name: j.names[i] })));
    await engine.load('events', events.reverse());
  }

  it('gives every line the same actors, step counts and conversion times', async () => {
    await fc.assert(
      fc.asyncProperty(specs, journeys, async (spec, data) => {
        await load(data);
        const found = await rows<{ line: string; actors: string; counts: string[]; averages: Array<number | null>; medians: Array<number | null> }>((p) => stepLinesSql(spec, EVENTS, p));
        const expected = expectedLines(spec, data);
        expect(found.map((r) => r.line).sort()).toEqual([...expected.keys()].sort());
        for (const row of found) {
          const line = expected.get(row.line)!;
          expect({ line: row.line, actors: Number(row.actors), counts: row.counts.map(Number) }).toEqual({ line: row.line, actors: line.actors, counts: line.steps.map((s) => s.count) });
          line.steps.forEach((step, i) => {
            if (!close(row.averages[i], step.averageConversionTime) || !close(row.medians[i], step.medianConversionTime)) {
              throw new Error(`step ${i} of line ${row.line}: ${row.averages[i]}/${row.medians[i]} in ClickHouse, ${step.averageConversionTime}/${step.medianConversionTime} expected`);
            }
          });
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('reads a breakdown by the actor\'s own person property once per actor, as if every event carried the value', async () => {
    const personSpecs = specs.filter((spec) => spec.attribution !== null && spec.attribution.type !== 'all_events');
    await fc.assert(
      fc.asyncProperty(personSpecs, journeys, async (spec, data) => {
        // Each actor's events carry their person's value (the first event's value stands for it).
        const people = new Map(data.map((j) => [j.actor, j.values[0] ?? 'a']));
        const carried = data.map((j) => ({ ...j, values: j.values.map(() => people.get(j.actor)!) }));
        await load(carried);
        await engine.load('people', [...people].map(([id, plan]) => ({ id, properties: JSON.stringify({ plan }) })));
        const personLine = { persons: '(SELECT id, properties FROM people)', value: "JSONExtractString(pp.properties, 'plan')" };
        const found = await rows<{ line: string; actors: string; counts: string[] }>((p) => stepLinesSql(spec, { ...EVENTS, value: null, personLine }, p));
        const expected = expectedLines(spec, carried);
        expect(new Map(found.map((r) => [r.line, { actors: Number(r.actors), counts: r.counts.map(Number) }])))
          .toEqual(new Map([...expected].map(([line, l]) => [line, { actors: l.actors, counts: l.steps.map((st) => st.count) }])));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('evaluates an actor with 20,000 events in linear memory, whatever the order type', async () => {
    // A search per run over all of an actor's events would copy them for every run: gigabytes for this one actor.
    const events = 20_000;
    const heavy: Journey = { actor: 'heavy', times: [], masks: [], values: [], names: [], uuids: [] };
    for (let i = 0; i < events; i++) {
      heavy.times.push(Date.UTC(2024, 0, 1) + i * 1000);
      heavy.masks.push([1, 2, 4, 8, 3][i % 5]);
      heavy.values.push(VALUES[i % 3]);
      heavy.names.push(NAMES[i % 3]);
      heavy.uuids.push(`00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`);
    }
    await load([heavy]);
    for (const orderType of ['ordered', 'strict', 'unordered'] as const) {
      const spec: FunnelOutcomeSpec = {
        stepCount: 3, orderType, window: { interval: 1, unit: 'hour' }, windowEnd: (t) => t + 3_600_000, sameAsPrevious: [false, false, false],
        exclusions: [{ bit: 3, fromStep: 0, toStep: 2 }], attribution: { type: 'first_touch', step: null },
      };
      const found = await rows<{ line: string; counts: string[] }>((p) => `${stepLinesSql(spec, EVENTS, p)} SETTINGS max_memory_usage = ${256 * 1024 * 1024}`);
      const expected = expectedLines(spec, [heavy]);
      expect(found.map((r) => [r.line, r.counts.map(Number)])).toEqual([...expected].map(([line, l]) => [line, l.steps.map((st) => st.count)]));
      const hourly = { interval: 'hour' as const, zone: 'UTC' };
      const trends = await rows<{ entered: [string[], string[]] }>((p) => `${trendLinesSql(spec, EVENTS, periodSql(hourly, p), { fromStep: 0, toStep: 2 }, p)} SETTINGS max_memory_usage = ${256 * 1024 * 1024}`);
      const [tally] = expectedTrends(spec, [heavy], { fromStep: 0, toStep: 2 }, periodOf(hourly)).values();
      expect(trends[0].entered[1].map(Number).reduce((a, b) => a + b, 0)).toBe([...tally.entered.values()].reduce((a, b) => a + b, 0));
    }
  }, 120_000);

  it('selects the same persons for a step, a drop-off or custom step counts', async () => {
    const selections = fc.oneof(
      fc.record({ step: fc.integer({ min: -4, max: 4 }).filter((s) => s !== 0 && s !== -1) }),
      fc.record({ customSteps: fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(specs, journeys, selections, async (spec, data, selection) => {
        await load(data);
        const found = await rows<{ actor: string; line: string }>((p) => stepActorsSql(spec, EVENTS, { ...selection, limit: 100, offset: 0 }, p));
        const selected = stepSelector(selection);
        const expected = data.flatMap((actor) => actorLines(spec, actor).filter(({ steps }) => steps.steps > 0 && selected(steps.steps)).map(({ line }) => `${actor.actor} ${line}`));
        expect(found.map((r) => `${r.actor} ${r.line}`).sort()).toEqual(expected.sort());
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  const noBreakdown = specs.map((spec): FunnelOutcomeSpec => ({ ...spec, attribution: null }));

  it('gives funnel paths the same actors at a step and the same span of each one\'s events', async () => {
    const spans = fc.record({
      type: fc.constantFrom<FunnelPathSpan['type']>('funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'),
      step: fc.integer({ min: -4, max: 4 }),
    }).filter(({ type, step }) => step !== 0 && step !== -1 && (step > 0 || type === 'funnel_path_after_step') && (type !== 'funnel_path_between_steps' || step >= 2));
    await fc.assert(
      fc.asyncProperty(noBreakdown, journeys, spans, async (spec, data, span) => {
        await load(data);
        const found = await rows<{ actor: string; span_from: number; span_to: number }>((p) => `${funnelSpansSql(spec, EVENTS, span, p)} SETTINGS output_format_json_quote_denormals = 1`);
        const chosen = stepSelector({ step: span.step });
        const expected = data.flatMap((actor) => {
          const best = earliestBestRun(keptRuns(inFunnelOrder({ times: actor.times, masks: actor.masks }), spec));
          const steps = best?.reached.length ?? 0;
          if (!best || !chosen(steps)) return [];
          const at = (step: number) => best.reached[step - 1];
          const [from, to] = span.step < 0 ? [at(steps), Infinity]
            : span.type === 'funnel_path_after_step' ? [at(span.step), Infinity]
            : span.type === 'funnel_path_before_step' ? [-Infinity, at(span.step)] : [at(span.step - 1), at(span.step)];
          return [{ actor: actor.actor, from, to }];
        });
        const asInfinity = (v: number | string) => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
        expect(found.map((r) => ({ actor: r.actor, from: asInfinity(r.span_from), to: asInfinity(r.span_to) })).sort((a, b) => a.actor.localeCompare(b.actor)))
          .toEqual(expected.sort((a, b) => a.actor.localeCompare(b.actor)));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
  const betweens = (spec: FunnelOutcomeSpec) => fc.tuple(fc.nat(spec.stepCount - 1), fc.nat(spec.stepCount - 1)).map(([a, b]) => ({ fromStep: Math.min(a, b), toStep: Math.max(a, b) }));

  it('gives funnel trends the same entrance periods and conversions per line', async () => {
    await fc.assert(
      fc.asyncProperty(specs.chain((spec) => fc.tuple(fc.constant(spec), betweens(spec))), journeys, periodings, async ([spec, between], data, periods) => {
        await load(data);
        type Sums = [string[], string[]];
        const found = await rows<{ line: string; actors: string; entered: Sums; converted: Sums }>((p) => trendLinesSql(spec, EVENTS, periodSql(periods, p), between, p));
        const asMap = ([keys, counts]: Sums) => new Map(keys.map((key, i) => [key, Number(counts[i])]));
        const got = new Map(found.map((r) => [r.line, { actors: Number(r.actors), entered: asMap(r.entered), converted: asMap(r.converted) }]));
        expect(got).toEqual(expectedTrends(spec, data, between, periodOf(periods)));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('selects the same persons for a funnel trends point, converted or dropped off', async () => {
    await fc.assert(
      fc.asyncProperty(specs.chain((spec) => fc.tuple(fc.constant(spec), betweens(spec))), journeys, periodings, fc.boolean(), fc.nat(), async ([spec, between], data, periods, dropOff, pick) => {
        await load(data);
        const byActor = data.flatMap((actor) => actorLines(spec, actor).filter((l) => l.steps.steps > 0).map((l) => ({ actor: actor.actor, line: l.line, periods: stepsByEntrancePeriod(l.runs, periodOf(periods)) })));
        const seen = [...new Set(byActor.flatMap((a) => [...a.periods.keys()]))].sort();
        const period = seen.length > 0 ? seen[pick % seen.length] : '2024-01-31T22:00:00';
        const found = await rows<{ actor: string; line: string }>((p) => trendActorsSql(spec, EVENTS, periodSql(periods, p), { ...between, period, dropOff }, p));
        const expected = byActor.filter((a) => (a.periods.get(period) ?? 0) > 0 && trendsActorSelected(a.periods.get(period)!, between.fromStep, between.toStep, dropOff));
        expect(found.map((r) => `${r.actor} ${r.line}`).sort()).toEqual(expected.map((a) => `${a.actor} ${a.line}`).sort());
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('gives time to convert the same conversion times, grouped by whole second', async () => {
    await fc.assert(
      fc.asyncProperty(noBreakdown.chain((spec) => fc.tuple(fc.constant(spec), betweens(spec))), journeys, async ([spec, between], data) => {
        await load(data);
        const found = await rows<Record<string, number>>((p) => conversionSecondsSql(spec, EVENTS, between, p));
        const samples = data.map((actor) => conversionSeconds(actorLines(spec, actor)[0].steps, between.fromStep, between.toStep)).filter((s): s is number => s !== null);
        const seconds = [...new Set(samples.map(Math.floor))].sort((a, b) => a - b);
        const expected = seconds.map((second) => {
          const inIt = samples.filter((s) => Math.floor(s) === second);
          return { second, actors: inIt.length, least: Math.min(...inIt), greatest: Math.max(...inIt), total: inIt.reduce((a, b) => a + b, 0) };
        });
        const got = found.map((r) => ({ second: Number(r.second), actors: Number(r.actors), least: Number(r.least), greatest: Number(r.greatest), total: Number(r.total) })).sort((a, b) => a.second - b.second);
        expect(got.map(({ total, ...rest }) => rest)).toEqual(expected.map(({ total, ...rest }) => rest));
        got.forEach((group, i) => expect(close(group.total, expected[i].total)).toBe(true));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  /** Each actor's funnel span and the names of their events inside it, as the TypeScript evaluation finds them. */
  const spans = (spec: FunnelOutcomeSpec, data: Journey[]) => data.flatMap((actor) => {
    const span = funnelSpan(keptRuns(inFunnelOrder({ times: actor.times, masks: actor.masks }), spec), spec.stepCount, spec.windowEnd, RANGE_END);
    return span ? [{ actor: actor.actor, converted: span.converted, names: eventsInSpan(actor.times, span, (i) => actor.names[i]) }] : [];
  });

  it('counts event correlation the same: who converted and who did not, per event name inside their span', async () => {
    await fc.assert(
      fc.asyncProperty(noBreakdown, journeys, fc.subarray(NAMES), async (spec, data, skipped) => {
        await load(data);
        const candidates = (p: ChParams) => ({ actor: 'e.actor', name: 'e.name', from: EVENTS.from, where: [`NOT has(${p.add(skipped, 'Array(String)')}, e.name)`] });
        const found = await rows<Record<string, unknown>>((p) => correlationEventsSql(spec, EVENTS, candidates(p), RANGE_END, p));
        const expected = new Map<string, { success: number; failure: number }>([['0 ', { success: 0, failure: 0 }]]);
        for (const { converted, names } of spans(spec, data)) {
          for (const key of ['0 ', ...new Set(names.filter((n) => !skipped.includes(n)).map((n) => `1 ${n}`))]) {
            const count = expected.get(key) ?? { success: 0, failure: 0 };
            expected.set(key, converted ? { ...count, success: count.success + 1 } : { ...count, failure: count.failure + 1 });
          }
        }
        const got = new Map(found.map((r) => [`${r.kind} ${r.name}`, { success: Number(r.success), failure: Number(r.failure) }]));
        if (!got.has('0 ')) got.set('0 ', { success: 0, failure: 0 });
        expect(got).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('selects the same persons for a correlation row: converted or not, with the row\'s event inside their span', async () => {
    await fc.assert(
      fc.asyncProperty(noBreakdown, journeys, fc.constantFrom(true, false, null), fc.constantFrom(...NAMES), async (spec, data, converted, marked) => {
        await load(data);
        const found = await rows<{ actor: string }>((p) => correlationActorsSql(spec, { ...EVENTS, marked: `e.name = '${marked}'` }, RANGE_END, converted, p));
        // The engine reads the marked events beside the steps; unmarked events that are no step change no span.
        const expected = spans(spec, data).filter((a) => (converted === null || a.converted === converted) && a.names.includes(marked)).map((a) => a.actor);
        expect(found.map((r) => r.actor).sort()).toEqual(expected.sort());
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
