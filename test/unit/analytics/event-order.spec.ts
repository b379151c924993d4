import fc from 'fast-check';
import { DateTime } from 'luxon';
import { forEachPersonSequence } from '../../../src/modules/analytics/columnar/columnar-sequences';
import { EventColumns } from '../../../src/modules/analytics/columnar/event-columns';
import { orderByDistinct } from '../../../src/modules/analytics/columnar/event-order';

/**
 * A person's events, read from the ordered runs of their distinct ids plus the tail appended since the
 * last ordering, must be exactly their events in (time, uuid) order, whatever was ordered when and
 * whoever owns which distinct id (merges move distinct ids between persons after the ordering).
 */
type Step =
  | { kind: 'event'; distinct: number; time: number; tie: number; event: number }
  | { kind: 'owner'; distinct: number; person: number | null }
  | { kind: 'order' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('event' as const), distinct: fc.nat(5), time: fc.nat(20), tie: fc.nat(3), event: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('owner' as const), distinct: fc.nat(5), person: fc.option(fc.nat(3), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('order' as const) }) },
);

/** Every distinct id's first owner: two distinct ids per person, so persons read several runs from the start. */
const FIRST_OWNERS: Step[] = Array.from({ length: 6 }, (_, d) => ({ kind: 'owner', distinct: d, person: d % 3 }));

/** Plays the steps on a copy, the way the store appends, reassigns owners and orders. */
async function played(steps: Step[]): Promise<EventColumns> {
  const columns = new EventColumns();
  for (const s of [...FIRST_OWNERS, ...steps]) {
    if (s.kind === 'event') columns.append({ time: s.time, event: `e${s.event}`, distinctId: `d${s.distinct}`, tie: s.tie, item: null });
    if (s.kind === 'owner') columns.setOwner(`d${s.distinct}`, s.person === null ? null : `p${s.person}`);
    if (s.kind === 'order') columns.adoptOrder(await orderByDistinct(columns));
  }
  return columns;
}

/** Every person's kept events in the range, as (time, tie, event name) in order, the naive way. */
function expected(steps: Step[], from: number, to: number, keep: (event: string) => boolean): Map<string, string[]> {
  const owner = new Map<number, number | null>();
  for (const s of [...FIRST_OWNERS, ...steps]) if (s.kind === 'owner') owner.set(s.distinct, s.person);
  const byPerson = new Map<string, Array<{ time: number; tie: number; name: string }>>();
  for (const s of steps) {
    if (s.kind !== 'event') continue;
    const person = owner.get(s.distinct);
    if (person === undefined || person === null || s.time < from || s.time > to || !keep(`e${s.event}`)) continue;
    const list = byPerson.get(`p${person}`) ?? [];
    list.push({ time: s.time, tie: s.tie, name: `e${s.event}` });
    byPerson.set(`p${person}`, list);
  }
  // Events equal in time and tie are interchangeable here: they print the same unless their names differ.
  return new Map([...byPerson].map(([person, list]) => [person, list.sort((a, b) => a.time - b.time || a.tie - b.tie || a.name.localeCompare(b.name)).map((e) => `${e.time}/${e.tie}/${e.name}`)]));
}

async function read(columns: EventColumns, from: number, to: number, keep: (event: string) => boolean): Promise<Map<string, string[]>> {
  const range = { from: DateTime.fromMillis(from), to: DateTime.fromMillis(to), timezone: 'UTC' };
  const seen = new Map<string, string[]>();
  await forEachPersonSequence(columns, range as never, (i) => keep(columns.eventNames.values[columns.event[i]]), (person, events, start, end) => {
    const list: Array<{ time: number; tie: number; name: string }> = [];
    for (let k = start; k < end; k++) list.push({ time: columns.time[events[k]], tie: columns.tie[events[k]], name: columns.eventNames.values[columns.event[events[k]]] });
    // Order must come from the read; only ties of (time, tie) are put in a canonical order to compare.
    for (let k = 1; k < list.length; k++) expect(list[k - 1].time < list[k].time || (list[k - 1].time === list[k].time && list[k - 1].tie <= list[k].tie)).toBe(true);
    list.sort((a, b) => a.time - b.time || a.tie - b.tie || a.name.localeCompare(b.name));
    expect(seen.has(columns.personIds[person])).toBe(false);
    seen.set(columns.personIds[person], list.map((e) => `${e.time}/${e.tie}/${e.name}`));
  });
  return seen;
}

describe(forEachPersonSequence.name, () => {
  it('reads each person their events in order, across orderings, appended tails and owner changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 60 }), fc.nat(20), fc.nat(20), fc.boolean(), async (steps, a, b, onlyE0) => {
        const [from, to] = a <= b ? [a, b] : [b, a];
        const keep = (event: string) => !onlyE0 || event === 'e0';
        expect(await read(await played(steps), from, to, keep)).toEqual(expected(steps, from, to, keep));
      }),
      { numRuns: 500 },
    );
  });

  it('gives an ordering the events of its copy, each once, grouped by distinct id', async () => {
    const columns = await played([
      { kind: 'event', distinct: 2, time: 5, tie: 0, event: 0 },
      { kind: 'event', distinct: 1, time: 9, tie: 0, event: 1 },
      { kind: 'event', distinct: 2, time: 1, tie: 7, event: 2 },
      { kind: 'event', distinct: 1, time: 9, tie: 0, event: 0 },
      { kind: 'order' },
      { kind: 'event', distinct: 1, time: 0, tie: 0, event: 0 },
    ]);
    expect([columns.length, columns.orderedLength]).toEqual([5, 4]);
    // Distinct ids d0 … d5 have codes 0 … 5: d1's events first (a tie keeps arrival order), then d2's by time, then the tail.
    expect(Array.from(columns.time.subarray(0, 5))).toEqual([9, 9, 1, 5, 0]);
    expect(Array.from(columns.event.subarray(0, 5)).map((code) => columns.eventNames.values[code])).toEqual(['e1', 'e0', 'e2', 'e0', 'e0']);
    expect(Array.from(columns.distinctStart)).toEqual([0, 0, 2, 4, 4, 4, 4]);
  });
});
