import fc from 'fast-check';
import { ActorEvents, FunnelOrderType, FunnelSpec, stepSelector } from '../../../src/modules/analytics/model/funnel-evaluation';
import { Attribution, evaluateActor, median, runsByBreakdown, StepTally } from './support/funnel-oracle';

const MINUTE = 60_000;
const spec = (orderType: FunnelOrderType, overrides: Partial<FunnelSpec> = {}): FunnelSpec => ({
  stepCount: 3,
  orderType,
  window: { interval: 60, unit: 'minute' },
  windowEnd: (start) => start + 60 * MINUTE,
  sameAsPrevious: [false, false, false],
  exclusions: [],
  ...overrides,
});
/** Events as [minute, step bits…]: bit i for step i, bit 3 for the exclusion. */
const events = (...list: Array<[number, number]>): ActorEvents => ({ times: list.map(([m]) => m * MINUTE), masks: list.map(([, mask]) => mask) });
const A = 1;
const B = 2;
const C = 4;
const X = 8;
const OTHER = 0;

describe('evaluateActor', () => {
  it('follows ordered steps from the earliest start and averages the best runs', () => {
    const outcome = evaluateActor(events([0, A], [10, A], [20, B], [30, C]), spec('ordered'));
    expect(outcome).toEqual({ steps: 3, averageSeconds: [null, 900, 600], medianSeconds: [null, 900, 600] });
  });

  it('stops an ordered run at the first step out of order or out of the window', () => {
    expect(evaluateActor(events([0, A], [5, C], [10, B]), spec('ordered')).steps).toBe(2);
    expect(evaluateActor(events([0, A], [61, B]), spec('ordered')).steps).toBe(1);
    expect(evaluateActor(events([0, A], [60, B]), spec('ordered')).steps).toBe(2);
  });

  it('lets one event be two different steps, but not a repeated step twice', () => {
    expect(evaluateActor(events([0, A | B]), spec('ordered', { stepCount: 2 })).steps).toBe(2);
    const repeated = spec('ordered', { stepCount: 2, sameAsPrevious: [false, true] });
    expect(evaluateActor(events([0, A | B]), repeated).steps).toBe(1);
    expect(evaluateActor(events([0, A | B], [1, A | B]), repeated).steps).toBe(2);
  });

  it('breaks a strict run on any event between two steps', () => {
    expect(evaluateActor(events([0, A], [1, OTHER], [2, B], [3, C]), spec('strict')).steps).toBe(1);
    expect(evaluateActor(events([0, A], [1, OTHER], [2, A], [3, B], [4, C]), spec('strict')).steps).toBe(3);
  });

  it('counts unordered steps inside the window whichever comes first', () => {
    const outcome = evaluateActor(events([0, C], [10, B], [20, A]), spec('unordered'));
    expect(outcome).toEqual({ steps: 3, averageSeconds: [null, 600, 600], medianSeconds: [null, 600, 600] });
    expect(evaluateActor(events([0, B]), spec('unordered')).steps).toBe(1);
    expect(evaluateActor(events([0, B]), spec('ordered')).steps).toBe(0);
  });

  it('drops a run with an exclusion strictly between its steps, or before the window ends when the step was not reached', () => {
    const excluding = spec('ordered', { exclusions: [{ bit: 3, fromStep: 0, toStep: 1 }] });
    expect(evaluateActor(events([0, A], [5, X], [10, B]), excluding).steps).toBe(0);
    expect(evaluateActor(events([0, A], [10, B], [15, X]), excluding).steps).toBe(2);
    expect(evaluateActor(events([0, A], [30, X]), excluding).steps).toBe(0);
    expect(evaluateActor(events([0, A], [61, X]), excluding).steps).toBe(1);
    // A later start after the exclusion still counts.
    expect(evaluateActor(events([0, A], [5, X], [6, A], [10, B]), excluding).steps).toBe(2);
  });
});

describe(StepTally.name, () => {
  it('counts cumulatively and takes the mean of means and the median of medians', () => {
    const sut = new StepTally(3);
    sut.add({ steps: 3, averageSeconds: [null, 10, 100], medianSeconds: [null, 10, 100] });
    sut.add({ steps: 2, averageSeconds: [null, 20], medianSeconds: [null, 20] });
    sut.add({ steps: 2, averageSeconds: [null, 60], medianSeconds: [null, 50] });
    sut.add({ steps: 1, averageSeconds: [null], medianSeconds: [null] });
    expect(sut.steps()).toEqual([
      { count: 4, averageConversionTime: null, medianConversionTime: null },
      { count: 3, averageConversionTime: 30, medianConversionTime: 20 },
      { count: 1, averageConversionTime: 100, medianConversionTime: 100 },
    ]);
  });
});

describe('funnel properties over generated journeys', () => {
  const journey = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 240 }), fc.constantFrom(A, B, C, OTHER, A | B)), { maxLength: 12 })
    .map((list) => events(...list.sort((x, y) => x[0] - y[0])));
  const stepsOf = (e: ActorEvents, order: FunnelOrderType) => evaluateActor(e, spec(order)).steps;

  it('never reaches more steps strictly than ordered, nor ordered than unordered', () => {
    fc.assert(
      fc.property(journey, (e) => {
        const strict = stepsOf(e, 'strict');
        const ordered = stepsOf(e, 'ordered');
        expect(strict).toBeLessThanOrEqual(ordered);
        expect(ordered).toBeLessThanOrEqual(stepsOf(e, 'unordered'));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps step counts non-increasing and splits step n into step n+1 and the drop-off before it', () => {
    fc.assert(
      fc.property(fc.array(journey, { maxLength: 20 }), fc.constantFrom<FunnelOrderType>('ordered', 'strict', 'unordered'), (journeys, order) => {
        const outcomes = journeys.map((e) => evaluateActor(e, spec(order)));
        const tally = new StepTally(3);
        outcomes.forEach((o) => tally.add(o));
        const counts = tally.steps().map((s) => s.count);
        for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeLessThanOrEqual(counts[i - 1]);
        for (let n = 1; n < 3; n++) {
          const at = (step: number) => outcomes.map((o, i) => (o.steps > 0 && stepSelector({ step })(o.steps) ? i : -1)).filter((i) => i >= 0);
          const reached = at(n);
          const next = at(n + 1);
          const dropped = at(-(n + 1));
          expect(next.filter((i) => dropped.includes(i))).toEqual([]);
          expect([...next, ...dropped].sort((x, y) => x - y)).toEqual(reached);
          expect(reached).toHaveLength(counts[n - 1]);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('runsByBreakdown', () => {
  const withValues = (list: Array<[number, number, string]>) => ({ ...events(...list.map(([m, mask]) => [m, mask] as [number, number])), values: list.map(([, , v]) => v) });
  const journey = withValues([[0, A, 'x'], [5, A, 'y'], [10, B, 'y'], [20, C, 'z']]);
  const attributed = (type: Attribution['type'], step: number | null = null) =>
    runsByBreakdown(journey, spec('ordered'), { type, step }).map(({ value, runs }) => [value, Math.max(0, ...runs.map((r) => r.reached.length))]);

  it('attributes the first step\'s first event, the last step event, or a chosen step', () => {
    expect(attributed('first_touch')).toEqual([['x', 3]]);
    expect(attributed('last_touch')).toEqual([['z', 3]]);
    expect(attributed('step', 1)).toEqual([['y', 3]]);
    expect(runsByBreakdown(withValues([[0, A, 'x']]), spec('ordered'), { type: 'step', step: 2 })[0].value).toBe('$$_posthog_breakdown_null_$$');
  });

  it('runs the funnel per value over the events carrying it (all events)', () => {
    expect(attributed('all_events')).toEqual([['x', 1], ['y', 2], ['z', 0]]);
  });
});

describe(median.name, () => {
  it('is the middle value (or the mean of the two middle ones) of any list, short or long, and leaves the list as it was', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e9, max: 1e9, noNaN: true }).map((v) => v + 0), { maxLength: 80 }), (values) => {
        const before = [...values];
        const sorted = [...values].sort((a, b) => a - b);
        const middle = sorted.length >> 1;
        const expected = sorted.length === 0 ? null : sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        expect(median(values)).toBe(expected);
        expect(values).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });
});
