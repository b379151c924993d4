import fc from 'fast-check';
import { actorPaths, EdgeTally, pathSelected, PathSpec, wildcardMatcher } from './support/path-oracle';
import { parsePathCleaningRules } from '../../../src/common/validation/path-cleaning';

const MINUTE = 60_000;
const spec = (overrides: Partial<PathSpec> = {}): PathSpec => ({ cleaning: [], groupings: [], excluded: new Set(), startPoint: null, endPoint: null, stepLimit: 5, ...overrides });
const keys = (paths: ReturnType<typeof actorPaths>) => paths.map((path) => path.map((step) => step.key));

describe('actorPaths', () => {
  it('splits sessions at 30-minute gaps and collapses repeats into their last occurrence', () => {
    const paths = actorPaths([0, MINUTE, 2 * MINUTE, 40 * MINUTE], ['/a', '/b', '/b', '/c'], spec());
    expect(keys(paths)).toEqual([['1_/a', '2_/b'], ['1_/c']]);
    expect(paths[0][1]).toEqual({ key: '2_/b', previous: '1_/a', msSincePrevious: 2 * MINUTE });
  });

  it('cleans, then groups, then excludes', () => {
    const cleaning = parsePathCleaningRules([{ regex: '\\d+', alias: ':id' }]);
    const groupings = [{ pattern: '/docs*', matches: wildcardMatcher('/docs*') }];
    expect(keys(actorPaths([0, 1, 2, 3], ['/u/12', '/docs/a', '/docs/b', '/x'], spec({ cleaning, groupings, excluded: new Set(['/x']) })))).toEqual([['1_/u/:id', '2_/docs*']]);
  });

  it('cuts at start and end points and keeps the step limit', () => {
    const items = ['/a', '/b', '/c', '/d', '/e'];
    const times = [0, 1, 2, 3, 4];
    expect(keys(actorPaths(times, items, spec({ startPoint: '/c' })))).toEqual([['1_/c', '2_/d', '3_/e']]);
    expect(keys(actorPaths(times, items, spec({ endPoint: '/d', stepLimit: 2 })))).toEqual([['1_/c', '2_/d']]);
    expect(keys(actorPaths(times, items, spec({ startPoint: '/b', endPoint: '/d' })))).toEqual([['1_/b', '2_/c', '3_/d']]);
    expect(actorPaths(times, items, spec({ startPoint: '/z' }))).toEqual([]);
  });

  it('matches wildcards over the whole item', () => {
    const m = wildcardMatcher('/a/*/b*');
    expect([m('/a/x/b'), m('/a/x/y/bz'), m('/a/b'), m('x/a/x/b')]).toEqual([true, true, false, false]);
    expect(wildcardMatcher('/exact')('/exact/')).toBe(false);
  });
});

describe(EdgeTally.name, () => {
  it('orders by weight then bytes, and drops edges cut off from a first step', () => {
    const sut = new EdgeTally();
    sut.add(actorPaths([0, 1, 2], ['/a', '/b', '/c'], spec())[0]);
    sut.add(actorPaths([0, 1], ['/a', '/b'], spec())[0]);
    expect(sut.result(null, null, null).map((e) => [e.source, e.target, e.value])).toEqual([['1_/a', '2_/b', 2], ['2_/b', '3_/c', 1]]);
    // With room for one edge only, 2_/b → 3_/c would hang from nothing.
    expect(sut.result(1, null, null).map((e) => e.target)).toEqual(['2_/b']);
    expect(sut.result(null, 2, null).map((e) => e.target)).toEqual(['2_/b']);
  });

  it('selects persons by start, end, edge and drop-off keys', () => {
    const paths = actorPaths([0, 1, 2], ['/a', '/b', '/c'], spec());
    const none = { start: null, end: null, dropoff: null };
    expect(pathSelected(paths, { ...none, end: '2_/b' })).toBe(true);
    expect(pathSelected(paths, { ...none, start: '1_/a', end: '3_/c' })).toBe(false);
    expect(pathSelected(paths, { ...none, dropoff: '3_/c' })).toBe(true);
    expect(pathSelected(paths, { ...none, dropoff: '2_/b' })).toBe(false);
  });

  it('never sends more out of a node than came in, plus the paths that start there', () => {
    const journey = fc.array(fc.tuple(fc.nat(120), fc.constantFrom('/a', '/b', '/c', '/d')), { maxLength: 15 });
    fc.assert(
      fc.property(fc.array(journey, { maxLength: 10 }), fc.integer({ min: 1, max: 5 }), (journeys, stepLimit) => {
        const sut = new EdgeTally();
        const starts = new Map<string, number>();
        for (const events of journeys) {
          const sorted = [...events].sort((x, y) => x[0] - y[0]);
          for (const path of actorPaths(sorted.map(([m]) => m * MINUTE), sorted.map(([, item]) => item), spec({ stepLimit }))) {
            sut.add(path);
            starts.set(path[0].key, (starts.get(path[0].key) ?? 0) + 1);
          }
        }
        const edges = sut.result(null, 1, null);
        const flow = (node: string, side: 'source' | 'target') => edges.filter((e) => e[side] === node).reduce((sum, e) => sum + e.value, 0);
        for (const node of new Set(edges.map((e) => e.source))) expect(flow(node, 'source')).toBeLessThanOrEqual(flow(node, 'target') + (starts.get(node) ?? 0));
      }),
      { numRuns: 300 },
    );
  });
});
