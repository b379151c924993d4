import fc from 'fast-check';
import { DateTime } from 'luxon';
import { bucketKey, bucketStarts, intervalStart } from '../../../src/modules/analytics/model/insight-dates';
import type { InsightQuery, LifecycleStatus } from '../../../src/modules/analytics/model/insight-query';
import { parseLegacyFilter } from '../../../src/modules/analytics/parsers/legacy-filter.parser';
import type { SqlContext } from '../../../src/modules/analytics/sql/event-scope.sql';
import { lifecycleActorsSql, lifecycleCountsSql } from '../../../src/modules/analytics/sql/stickiness-lifecycle.sql';
import { scratchEngine } from './support/scratch-engine';

/**
 * Lifecycle as ClickHouse computes it (periods as bits, 64 to a word) against the rule stated plainly over each
 * person's set of periods: hours, days, weeks and months in zones with daylight saving and half-hour offsets, ranges
 * of one to three words of periods, persons created before, inside and after the range, deleted persons and actors
 * without a person row (dormant only), and events outside the range. LIFECYCLE_RUNS scales the number of runs.
 */
const RUNS = Number(process.env.LIFECYCLE_RUNS ?? 60);
const PROJECT = 1;
const CTX: SqlContext = { projectId: PROJECT, cohorts: new Map(), groupTypes: new Map(), testAccountFilters: null, now: new Date('2025-01-01T00:00:00Z'), hasOverrides: false };

interface Person {
  id: number;
  /** A deleted person, or an actor without a person row, is never active in a status, only dormant after activity. */
  row: 'live' | 'deleted' | 'missing';
  /** Created at the first event, or this many periods before it (negative: after). */
  createdBefore: number | null;
  /** Events, in periods from the range's first (fractions place them inside a period). */
  events: number[];
}

interface Case {
  interval: 'minute' | 'hour' | 'day' | 'week' | 'month';
  zone: string;
  /** The range's start (local) and its length in periods: 40 to 150, so one, two or three words of periods. */
  start: string;
  periods: number;
  weekStartDay: 0 | 1;
  persons: Person[];
}

const person = (id: number) =>
  fc.record({
    id: fc.constant(id),
    row: fc.constantFrom<Person['row']>('live', 'live', 'live', 'deleted', 'missing'),
    createdBefore: fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 70 })),
    events: fc.array(fc.oneof({ arbitrary: fc.double({ min: -3, max: 152, noNaN: true }), weight: 3 }, { arbitrary: fc.integer({ min: -1, max: 151 }), weight: 1 }), { maxLength: 40 }),
  });

const cases: fc.Arbitrary<Case> = fc.record({
  interval: fc.constantFrom<Case['interval']>('minute', 'hour', 'day', 'week', 'month'),
  // New York changes its clocks on 2024-03-10 and 2024-11-03; Kolkata is UTC+05:30.
  zone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata'),
  start: fc.constantFrom('2024-03-08T00:00:00', '2024-11-02T13:00:00', '2024-01-28T00:00:00'),
  periods: fc.integer({ min: 40, max: 150 }),
  weekStartDay: fc.constantFrom<0 | 1>(0, 1),
  persons: fc.integer({ min: 1, max: 7 }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => person(i + 1)))),
});

function queryOf(c: Case): InsightQuery {
  const from = DateTime.fromISO(c.start, { zone: c.zone });
  const to = from.plus({ [`${c.interval}s`]: c.periods - 1 });
  const context = { timezone: c.zone, weekStartDay: c.weekStartDay, now: to.plus({ days: 1 }), earliest: () => null, actions: new Map() };
  const filter = { shown_as: 'Lifecycle', events: [{ id: '$pageview' }], interval: c.interval, date_from: from.toISO()!, date_to: to.toISO()! };
  return parseLegacyFilter(filter, context);
}

/** A time `periods` intervals after the range's first period start (fractions of a period by its length in ms). */
function timeAt(query: InsightQuery, periods: number): DateTime {
  const first = intervalStart(query.range.from, query.interval, query.weekStartDay);
  const whole = Math.floor(periods);
  const start = first.plus({ [`${query.interval}s`]: whole });
  return start.plus({ milliseconds: (periods - whole) * (start.plus({ [`${query.interval}s`]: 1 }).toMillis() - start.toMillis()) });
}

interface Rows {
  events: Array<{ team_id: number; timestamp: string; event: string; person_id: number }>;
  person: Array<{ team_id: number; id: number; created_at: string; is_deleted: number; version: number }>;
}

const micros = (at: DateTime) => at.toUTC().toFormat('yyyy-MM-dd HH:mm:ss.SSS000');

function rowsOf(query: InsightQuery, c: Case): Rows & { created: Map<number, DateTime> } {
  const rows: Rows = { events: [], person: [] };
  const created = new Map<number, DateTime>();
  for (const p of c.persons) {
    const times = p.events.map((at) => timeAt(query, at));
    for (const at of times) rows.events.push({ team_id: PROJECT, timestamp: micros(at), event: '$pageview', person_id: p.id });
    // Another project's and another event's rows, which no answer may count.
    rows.events.push({ team_id: PROJECT + 1, timestamp: micros(timeAt(query, 5)), event: '$pageview', person_id: p.id });
    rows.events.push({ team_id: PROJECT, timestamp: micros(timeAt(query, 6)), event: 'other', person_id: p.id });
    if (p.row === 'missing') continue;
    const firstEvent = DateTime.min(...times) ?? timeAt(query, 10);
    const at = p.createdBefore === null ? firstEvent : firstEvent.minus({ [`${query.interval}s`]: p.createdBefore });
    // A deletion is a newer version, written before the older one here: the newest version wins, not the last row.
    if (p.row === 'deleted') rows.person.push({ team_id: PROJECT, id: p.id, created_at: micros(at), is_deleted: 1, version: 2 });
    else created.set(p.id, at);
    rows.person.push({ team_id: PROJECT, id: p.id, created_at: micros(at), is_deleted: 0, version: 1 });
  }
  return { ...rows, created };
}

/** A status's holders in one period; periods by index, since a clock set back repeats a wall time. */
type Holders = Map<string, { status: LifecycleStatus; period: number; start: DateTime; key: string; ids: Set<number> }>;

/**
 * The rule, period by period: a person is new in the period they were created in, returning when active in the
 * period before too, resurrecting otherwise; dormant in a period after an active one without activity. Only persons
 * that exist have active statuses; dormant counts every actor. Period 0 is the one before the range; a time's period
 * is the last that starts at or before it.
 */
function oracle(query: InsightQuery, c: Case, created: Map<number, DateTime>): Holders {
  const starts = bucketStarts(query.range, query.interval, query.weekStartDay);
  const periods = [starts[0].minus({ [`${query.interval}s`]: 1 }), ...starts];
  const end = Math.min(query.range.to.toMillis() + 1, periods[periods.length - 1].plus({ [`${query.interval}s`]: 1 }).toMillis());
  const periodOf = (at: DateTime) => (at.toMillis() >= end ? -1 : periods.findLastIndex((start) => start.toMillis() <= at.toMillis()));
  const holders: Holders = new Map();
  for (const p of c.persons) {
    const active = new Set(p.events.map((at) => periodOf(timeAt(query, at))));
    const born = created.has(p.id) ? periodOf(created.get(p.id)!) : null;
    for (let i = 1; i < periods.length; i++) {
      const [now, before] = [active.has(i), active.has(i - 1)];
      let status: LifecycleStatus | null = null;
      if (now && created.has(p.id)) status = born === i ? 'new' : before ? 'returning' : 'resurrecting';
      else if (!now && before) status = 'dormant';
      if (!status) continue;
      const held = holders.get(`${status} ${i}`) ?? { status, period: i, start: periods[i], key: bucketKey(periods[i]), ids: new Set<number>() };
      holders.set(`${status} ${i}`, held.ids.add(p.id) && held);
    }
  }
  return holders;
}

describe('lifecycle in ClickHouse', () => {
  const engine = scratchEngine(
    `CREATE TABLE events (team_id Int64, timestamp DateTime64(6, 'UTC'), event String, person_id Int64) ENGINE = Memory`,
    `CREATE TABLE person (team_id Int64, id Int64, created_at DateTime64(6, 'UTC'), is_deleted UInt8, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY (team_id, id)`,
  );

  async function load(query: InsightQuery, c: Case): Promise<Map<number, DateTime>> {
    const { events, person: persons, created } = rowsOf(query, c);
    await engine.load('events', events);
    await engine.load('person', persons);
    return created;
  }

  it('counts the persons of each status and period as the rule says', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const query = queryOf(c);
        const expected = oracle(query, c, await load(query, c));
        const rows = await engine.read<{ status: string; bucket: string; value: number }>(lifecycleCountsSql(query, query.series[0], CTX));
        const counts = (list: Array<[string, string, number]>) => list.map((row) => row.join(' ')).sort();
        expect(counts(rows.map((row) => [row.status, row.bucket, row.value]))).toEqual(counts([...expected.values()].map((held) => [held.status, held.key, held.ids.size])));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('pages the persons of one status and period in id order', async () => {
    await fc.assert(
      fc.asyncProperty(cases, fc.nat(), async (c, pick) => {
        const query = queryOf(c);
        const held = [...oracle(query, c, await load(query, c)).values()];
        // A period and status that someone holds, named by its start's wall time (of two alike, when a clock was set
        // back, the first); the page starts inside its persons.
        const chosen = held[pick % Math.max(held.length, 1)] ?? { status: 'new' as const, period: 1, start: timeAt(query, 0), key: '', ids: new Set<number>() };
        const first = held.filter((h) => h.status === chosen.status && h.key === chosen.key).sort((a, b) => a.period - b.period)[0] ?? chosen;
        const ids = [...first.ids].sort((a, b) => a - b);
        const offset = pick % Math.max(ids.length, 1);
        const target = chosen.start;
        const rows = await engine.read<{ actor: string }>(lifecycleActorsSql(query, query.series[0], chosen.status, target, () => [], CTX, { limit: 2, offset }));
        expect(rows.map((row) => Number(row.actor))).toEqual(ids.slice(offset, offset + 2));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('counts a hand-computed case: new, returning, resurrecting and dormant over five days', async () => {
    const c: Case = {
      interval: 'day', zone: 'UTC', start: '2024-03-08T00:00:00', periods: 5, weekStartDay: 0,
      persons: [
        // Active on days 0, 1 and 3, created on day 0: new, returning, dormant, resurrecting, dormant.
        { id: 1, row: 'live', createdBefore: null, events: [0.5, 1.2, 3.9] },
        // Created long before, active the day before the range and on day 1: dormant on day 0, resurrecting, dormant.
        { id: 2, row: 'live', createdBefore: 30, events: [-0.5, 1.5] },
        // No person row: dormant after its active day, never active itself.
        { id: 3, row: 'missing', createdBefore: null, events: [2.5] },
      ],
    };
    const query = queryOf(c);
    await load(query, c);
    const rows = await engine.read<{ status: string; bucket: string; value: number }>(lifecycleCountsSql(query, query.series[0], CTX));
    const day = (n: number) => `2024-03-${String(8 + n).padStart(2, '0')}T00:00:00`;
    expect(Object.fromEntries(rows.map((row) => [`${row.status} ${row.bucket}`, row.value]))).toEqual({
      [`new ${day(0)}`]: 1, [`dormant ${day(0)}`]: 1,
      [`returning ${day(1)}`]: 1, [`resurrecting ${day(1)}`]: 1,
      [`dormant ${day(2)}`]: 2,
      [`resurrecting ${day(3)}`]: 1, [`dormant ${day(3)}`]: 1,
      [`dormant ${day(4)}`]: 1,
    });
  });
});
