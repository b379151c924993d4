import fc from 'fast-check';
import { ChParams } from '../../../src/modules/analytics/engine/ch-sql';
import type { PathActorsSelection } from '../../../src/modules/analytics/model/insight-query';
import { reachableEdges } from '../../../src/modules/analytics/model/path-edges';
import { edgesSql, keyItems, PathEventsInput, pathEventsSql, PathSpec, selectedActorsSql, sessionPathsSql } from '../../../src/modules/analytics/sql/paths.sql';
import { byteOrder } from '../../../src/modules/analytics/model/actor-page';
import { actorPaths, actorVisitedItems, EdgeTally, pathSelected, pathSpecOf, PathStep } from './support/path-oracle';
import { scratchEngine } from './support/scratch-engine';

/**
 * Paths as ClickHouse builds them (sql/paths.sql.ts) against the TypeScript statement of the same meaning
 * (support/path-oracle.ts): random journeys with ties, long gaps (sessions), repeats, cleaning rules, groupings,
 * exclusions, start and end points and limits give the same edges and select the same actors. PATH_RUNS scales the
 * number of runs.
 */

const RUNS = Number(process.env.PATH_RUNS ?? 150);
const EVENTS: PathEventsInput = {
  actor: 'e.actor', raw: 'e.item', where: ['1'],
  from: `(SELECT actor, uuid, fromUnixTimestamp64Micro(micros, 'UTC') AS timestamp, item FROM events) AS e`,
};
/** Items that the rules below clean and group, a backslash, and events without an item. */
const ITEMS = ['/a', '/b', '/u/12', '/u/7', '/docs/x', '/docs/y', 'c\\d', null];
const RULES = [{ regex: '\\d+', alias: ':id' }, { regex: '^/docs', alias: '/d\\1' }, { regex: 'y$', alias: '' }];
const GROUPINGS = ['/d\\1*', '/u/*', '*b', 'c\\*'];
const CANDIDATE_POINTS = ['/a', '/b', '/u/:id', '/u/*', '/d\\1/x', '*b', 'c\\d'];
const MINUTE = 60_000;

interface Journey {
  actor: string;
  times: number[];
  items: Array<string | null>;
  uuids: string[];
}

const subset = <T>(values: T[]) => fc.subarray(values).chain((picked) => fc.shuffledSubarray(picked, { minLength: picked.length, maxLength: picked.length }));

/** Mostly null: each option cuts away most paths, and together they would leave few edges to compare. */
const sometimes = <T>(value: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary: value, weight: 1 });

const specs = fc.record({
  cleaningRules: subset(RULES),
  groupings: subset(GROUPINGS),
  excludeEvents: fc.subarray(['/b', '/u/:id', '/a']),
  startPoint: sometimes(fc.constantFrom(...CANDIDATE_POINTS)),
  endPoint: sometimes(fc.constantFrom(...CANDIDATE_POINTS)),
  stepLimit: fc.integer({ min: 1, max: 4 }),
  edgeLimit: sometimes(fc.integer({ min: 1, max: 6 })),
  minEdgeWeight: sometimes(fc.integer({ min: 1, max: 3 })),
  maxEdgeWeight: sometimes(fc.integer({ min: 1, max: 4 })),
});

/**
 * Events ten minutes apart, often at one instant (ties by UUID text), often exactly 30 minutes apart (a new session)
 * or just under it.
 */
const journey = (actor: string) =>
  fc.array(fc.record({ at: fc.integer({ min: 0, max: 12 }), fraction: fc.constantFrom(0, 0.25, -0.25), item: fc.constantFrom(...ITEMS), uuid: fc.uuid() }), { maxLength: 14 })
    .map((events): Journey => {
      const timed = events.map((e) => ({ ...e, time: Date.UTC(2024, 0, 31, 22) + e.at * 10 * MINUTE + e.fraction }));
      const sorted = timed.sort((a, b) => a.time - b.time || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
      return { actor, times: sorted.map((e) => e.time), items: sorted.map((e) => e.item), uuids: sorted.map((e) => e.uuid) };
    });
const journeys = fc.integer({ min: 1, max: 8 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => journey(`actor-${i}`))));

function oracleSpec(spec: PathSpec) {
  return pathSpecOf({ ...spec, eventTypes: [], customEvents: [], funnel: null, edgeLimit: null, minEdgeWeight: null, maxEdgeWeight: null });
}

function oraclePaths(spec: PathSpec, data: Journey[]): Array<{ actor: string; paths: PathStep[][] }> {
  return data.map((j) => ({ actor: j.actor, paths: actorPaths(j.times, j.items, oracleSpec(spec)) }));
}

describe('paths built in ClickHouse, differential against the TypeScript statement', () => {
  const engine = scratchEngine('CREATE TABLE events (actor String, uuid UUID, micros Int64, item Nullable(String)) ENGINE = Memory');
  const rows = engine.rows;

  async function load(data: Journey[]): Promise<void> {
    // Stored newest first, so an order the engine does not impose (ties by UUID) is not there by chance.
    await engine.load('events', data.flatMap((j) => j.times.map((time, i) => ({ actor: j.actor, uuid: j.uuids[i], micros: time * 1000, item: j.items[i] }))).reverse());
  }

  const paths = (spec: PathSpec, p: ChParams) => sessionPathsSql(spec, pathEventsSql(spec, EVENTS, p), p);

  it('counts the same edges, heaviest first within the bounds, with the same mean times', async () => {
    await fc.assert(
      fc.asyncProperty(specs, journeys, async (spec, data) => {
        await load(data);
        const found = await rows<{ source: string; target: string; value: string; total_ms: number }>((p) => edgesSql(paths(spec, p), spec, p));
        const edges = found.map((r) => ({ source: r.source, target: r.target, value: Number(r.value), averageConversionTime: r.total_ms / Number(r.value) }));
        const shown = spec.minEdgeWeight === null && spec.maxEdgeWeight === null ? reachableEdges(edges) : edges;
        const tally = new EdgeTally();
        for (const { paths: actorPaths } of oraclePaths(spec, data)) actorPaths.forEach((path) => tally.add(path));
        const expected = tally.result(spec.edgeLimit, spec.minEdgeWeight, spec.maxEdgeWeight);
        expect(shown.map(({ source, target, value }) => ({ source, target, value }))).toEqual(expected.map(({ source, target, value }) => ({ source, target, value })));
        shown.forEach((edge, i) => expect(Math.abs(edge.averageConversionTime - expected[i].averageConversionTime)).toBeLessThan(1e-6));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('selects the same page of actors and knows the same keys', async () => {
    // Each named key mostly one that some path holds (picked by index once the paths are built), else one that none may.
    const pick = sometimes(fc.oneof({ arbitrary: fc.nat().map((n) => ({ held: n })), weight: 4 }, { arbitrary: fc.constantFrom('2_/a', '9_/b').map((key) => ({ key })), weight: 1 }));
    const picks = fc.record({ start: pick, end: pick, dropoff: pick, limit: fc.integer({ min: 1, max: 5 }), offset: fc.integer({ min: 0, max: 2 }) });
    await fc.assert(
      fc.asyncProperty(specs, journeys, picks, async (spec, data, picked) => {
        await load(data);
        const built = oraclePaths(spec, data);
        const held = new Set(built.flatMap((a) => a.paths.flatMap((path) => path.map((step) => step.key))));
        const heldKeys = [...held].sort();
        const keyOf = (p: { held: number } | { key: string } | null) => (p === null ? null : 'key' in p ? p.key : heldKeys.length === 0 ? '1_/a' : heldKeys[p.held % heldKeys.length]);
        const selection: PathActorsSelection = { start: keyOf(picked.start), end: keyOf(picked.end), dropoff: keyOf(picked.dropoff), limit: picked.limit, offset: picked.offset };
        const holding = keyItems([selection.start, selection.end, selection.dropoff]);
        const [found] = await rows<{ seen: number; actors: string[] }>((p) => selectedActorsSql(sessionPathsSql(spec, pathEventsSql(spec, EVENTS, p, holding), p), selection, p));
        // A key is known when its item is visited in some path, at any step.
        const visited = new Set(data.flatMap((j) => actorVisitedItems(j.times, j.items, oracleSpec(spec))));
        const seen = (['start', 'end', 'dropoff'] as const).reduce((bits, name, bit) => bits + (selection[name] !== null && visited.has(keyItems([selection[name]])[0]) ? 1 << bit : 0), 0);
        const selected = built.filter((a) => pathSelected(a.paths, selection)).map((a) => a.actor).sort(byteOrder);
        expect({ seen: Number(found.seen), actors: found.actors }).toEqual({ seen, actors: selected.slice(selection.offset, selection.offset + selection.limit) });
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
