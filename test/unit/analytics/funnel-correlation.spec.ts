import { CorrelationTally, eventsInSpan, funnelSpan, oddsRatio, propertyText } from '../../../src/modules/analytics/model/funnel-correlation';
import { conversionHistogram, conversionRates, SecondGroup } from '../../../src/modules/analytics/model/funnel-conversion';
import { conversionSeconds, stepsByEntrancePeriod, trendsActorSelected } from './support/funnel-oracle';

describe('funnel correlation', () => {
  it('computes the odds ratio with a prior of 1 in every cell', () => {
    expect(oddsRatio(3, 1, 3, 3)).toBe(6);
    expect(oddsRatio(0, 3, 3, 3)).toBe(1 / 16);
  });

  it('drops candidates below min(25, 2 % of actors) and keeps ten a side', () => {
    const sut = new CorrelationTally();
    for (let i = 0; i < 1000; i++) sut.add(i < 500 ? ['common', `rare-${i % 30}`] : ['common'], i % 2 === 0);
    const { rows, skewed } = sut.result();
    // 1000 actors: the floor is 20; each rare-k was seen by 16 or 17 actors.
    expect(rows.map((r) => r.name)).toEqual(['common']);
    expect(skewed).toBe(false);
  });

  it('is skewed and empty when nobody (or everybody) converted', () => {
    const sut = new CorrelationTally();
    sut.add(['a'], true);
    expect(sut.result()).toEqual({ rows: [], skewed: true });
  });

  it('counts a candidate once per actor and orders successes then failures', () => {
    const sut = new CorrelationTally();
    sut.add(['win', 'win', 'both'], true);
    sut.add(['both'], true);
    sut.add(['lose'], false);
    sut.add([], false);
    expect(sut.result().rows.map((r) => [r.name, r.successCount, r.failureCount, r.correlationType])).toEqual([
      ['both', 2, 0, 'success'], ['win', 1, 0, 'success'], ['lose', 0, 1, 'failure'],
    ]);
  });

  it('spans an actor\'s funnel from the first step of the earliest best run to its end', () => {
    const windowEnd = (start: number) => start + 100;
    expect(funnelSpan([{ reached: [10, 20] }, { reached: [5, 30] }], 2, windowEnd, 1000)).toEqual({ converted: true, first: 5, end: 30 });
    expect(funnelSpan([{ reached: [10] }], 2, windowEnd, 50)).toEqual({ converted: false, first: 10, end: 50 });
    expect(funnelSpan([], 2, windowEnd, 50)).toBeNull();
    expect(eventsInSpan([5, 6, 29, 30], { converted: true, first: 5, end: 30 }, (i) => i)).toEqual([1, 2]);
  });

  it('names property values as text', () => {
    expect([propertyText('pro'), propertyText(500), propertyText(true), propertyText({ a: 1 })]).toEqual(['pro', '500', 'true', '{"a":1}']);
  });
});

describe('funnel time to convert and trends', () => {
  it('adds the average step times between two steps, for actors who reached the last of them', () => {
    const outcome = { steps: 3, averageSeconds: [null, 10, 20], medianSeconds: [null, 10, 20] };
    expect(conversionSeconds(outcome, 0, 2)).toBe(30);
    expect(conversionSeconds(outcome, 1, 2)).toBe(20);
    expect(conversionSeconds({ ...outcome, steps: 2 }, 0, 2)).toBeNull();
  });

  /** Times grouped by whole second, as the engine gives them. */
  const bySecond = (samples: number[]): SecondGroup[] => {
    const groups = new Map<number, SecondGroup>();
    for (const s of samples) {
      const g = groups.get(Math.floor(s)) ?? { second: Math.floor(s), actors: 0, least: s, greatest: s, total: 0 };
      groups.set(g.second, { ...g, actors: g.actors + 1, least: Math.min(g.least, s), greatest: Math.max(g.greatest, s), total: g.total + s });
    }
    return [...groups.values()];
  };

  it('bins like PostHog: whole-second bins from the fastest, a closing bin, 60 s when all are equal', () => {
    expect(conversionHistogram(bySecond([1500, 3900, 4800]), null)).toEqual({ bins: [[1500, 1], [2600, 0], [3700, 1], [4800, 1]], averageConversionTime: 3400 });
    expect(conversionHistogram(bySecond([10, 10]), 2)).toEqual({ bins: [[10, 2], [70, 0], [130, 0]], averageConversionTime: 10 });
    expect(conversionHistogram([], null)).toEqual({ bins: [], averageConversionTime: null });
  });

  it('puts a fractional time in the bin of its whole second', () => {
    // From 1 to 9 (ceil of 8.6) in 3 bins of 3 s: 3.9 and 4.2 fall on either side of the bin edge at 4.
    expect(conversionHistogram(bySecond([1.5, 3.9, 4.2, 8.6]), 3)).toEqual({ bins: [[1, 2], [4, 1], [7, 1], [10, 0]], averageConversionTime: 4.55 });
  });

  it('takes each actor\'s best run per entrance period and rates conversion per period', () => {
    const periods = stepsByEntrancePeriod([{ reached: [1] }, { reached: [2, 3] }, { reached: [100] }], (at) => (at < 50 ? 'p1' : 'p2'));
    expect([...periods]).toEqual([['p1', 2], ['p2', 1]]);
    expect(conversionRates(['p1', 'p2', 'p3'], new Map([['p1', 3], ['p2', 1]]), new Map([['p1', 2]]))).toEqual([66.67, 0, 0]);
    expect([trendsActorSelected(2, 0, 1, false), trendsActorSelected(1, 0, 1, true), trendsActorSelected(2, 0, 1, true)]).toEqual([true, true, false]);
  });
});
