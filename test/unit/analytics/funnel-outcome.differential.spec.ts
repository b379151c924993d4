import { Session } from 'chdb';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { ChParams } from '../../../src/modules/analytics/engine/ch-sql';
import { ActorEventsWithValues, Attribution, runsByBreakdown } from '../../../src/modules/analytics/model/funnel-breakdown';
import { FunnelOrderType, keptRuns, outcomeOf, StepSummary, StepTally, stepSelector, UNIT_MS } from '../../../src/modules/analytics/model/funnel-evaluation';
import { FunnelOutcomeSpec, funnelSelectedActorsSql, funnelStepsSql } from '../../../src/modules/analytics/sql/funnel-outcome.sql';

/**
 * The funnel as ClickHouse evaluates it (array functions per actor) against the TypeScript statement of the same
 * meaning (model/funnel-evaluation.ts, funnel-breakdown.ts): random journeys, with ties, repeated steps, exclusions,
 * every order type and attribution, give the same lines (actors, step counts, conversion times) and select the same
 * persons. FUNNEL_RUNS scales the number of runs.
 */

const RUNS = Number(process.env.FUNNEL_RUNS ?? 150);
const VALUES = ['a', 'b', 'c'];

interface Journey {
  actor: string;
  times: number[];
  masks: number[];
  values: string[];
}

const specs = fc.integer({ min: 2, max: 4 }).chain((stepCount) =>
  fc.record({
    stepCount: fc.constant(stepCount),
    orderType: fc.constantFrom<FunnelOrderType>('ordered', 'strict', 'unordered'),
    window: fc.record({ interval: fc.integer({ min: 1, max: 20 }), unit: fc.constantFrom('second' as const, 'minute' as const, 'month' as const) }),
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

/** Events a few seconds apart, often at the same instant (ties), some at fractions of a ms as stored; bits for 4 steps and 2 exclusions. */
const journey = (actor: string) =>
  fc.array(fc.record({ at: fc.integer({ min: 0, max: 40 }), fraction: fc.constantFrom(0, 0.25), mask: fc.integer({ min: 0, max: 63 }), value: fc.constantFrom(...VALUES) }), { maxLength: 12 })
    .map((events): Journey => {
      const sorted = [...events].sort((a, b) => a.at - b.at || a.fraction - b.fraction);
      const base = Date.UTC(2024, 0, 31);
      return { actor, times: sorted.map((e) => base + e.at * 1000 + e.fraction), masks: sorted.map((e) => e.mask), values: sorted.map((e) => e.value) };
    });
const journeys = fc.integer({ min: 1, max: 8 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => journey(`actor-${i}`))));

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
  if (spec.attribution === null) return [{ line: '', steps: outcomeOf(keptRuns(events, spec)) }];
  return runsByBreakdown(events, spec, spec.attribution).map(({ value, runs }) => ({ line: value, steps: outcomeOf(runs) }));
}

const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a)));

describe('funnel evaluation in ClickHouse, differential against the TypeScript evaluation', () => {
  let session: Session;

  beforeAll(async () => {
    session = new Session();
    await session.queryAsync('CREATE TABLE sequences (actor String, times Array(Float64), masks Array(Int64), values Array(String)) ENGINE = Memory');
  }, 60_000);

  afterAll(() => session?.cleanup());

  async function load(data: Journey[]): Promise<void> {
    await session.queryAsync('TRUNCATE TABLE sequences');
    await session.queryAsync(`INSERT INTO sequences FORMAT JSONEachRow ${data.map((row) => JSON.stringify(row)).join('\n')}`);
  }

  async function rows<T>(build: (p: ChParams) => string): Promise<T[]> {
    const p = new ChParams();
    const text = build(p);
    return (await session.queryBindAsync(text, p.params, { format: 'JSON' })).json<{ data: T[] }>().data;
  }

  it('gives every line the same actors, step counts and conversion times', async () => {
    await fc.assert(
      fc.asyncProperty(specs, journeys, async (spec, data) => {
        await load(data);
        const found = await rows<{ line: string; actors: string; counts: string[]; averages: Array<number | null>; medians: Array<number | null> }>((p) => funnelStepsSql(spec, 'SELECT * FROM sequences', p));
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

  it('selects the same persons for a step, a drop-off or custom step counts', async () => {
    const selections = fc.oneof(
      fc.record({ step: fc.integer({ min: -4, max: 4 }).filter((s) => s !== 0 && s !== -1) }),
      fc.record({ customSteps: fc.uniqueArray(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(specs, journeys, selections, async (spec, data, selection) => {
        await load(data);
        const found = await rows<{ actor: string; line: string }>((p) => funnelSelectedActorsSql(spec, 'SELECT * FROM sequences', { ...selection, limit: 100, offset: 0 }, p));
        const selected = stepSelector(selection);
        const expected = data.flatMap((actor) => actorLines(spec, actor).filter(({ steps }) => steps.steps > 0 && selected(steps.steps)).map(({ line }) => `${actor.actor} ${line}`));
        expect(found.map((r) => `${r.actor} ${r.line}`).sort()).toEqual(expected.sort());
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
