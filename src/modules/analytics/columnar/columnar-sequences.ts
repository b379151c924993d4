import type { DateRange, InsightQuery } from '../model/insight-query';
import type { FunnelReadOptions } from '../sql/funnel.sql';
import { eventCodeOf, sliced } from './columnar-buckets';
import type { EventColumns, PersonColumn } from './event-columns';
import { sortByTime } from './event-order';

/**
 * Each person's events in time order, built from the in-memory columns: the rows that
 * `actorSequencesSql` gives funnels and paths (`times` plus aligned columns, ordered by timestamp then
 * uuid), so the same pure evaluation runs on either. A person's events are the ordered runs of their
 * distinct ids (see event-order.ts) plus their events in the tail appended since the last ordering.
 */

/**
 * One person's events: positions in the columns, `events[start … end)`, in (time, uuid) order. `events`
 * is a buffer reused for the next person: a visitor copies what it keeps.
 */
type Visit = (person: number, events: Int32Array, start: number, end: number) => void;

/** `column(events[k])` for k in [start, end), as a plain array. */
function gather<T>(events: Int32Array, start: number, end: number, column: (i: number) => T): T[] {
  const out = new Array<T>(end - start);
  for (let k = start; k < end; k++) out[k - start] = column(events[k]);
  return out;
}

/** Items grouped by an owner: owner o's items are items[start[o] … start[o + 1]). */
interface Groups {
  start: Int32Array;
  items: Int32Array;
}

/** `count` items grouped by `ownerOf(item)` (-1: left out) with a counting sort, keeping their order. */
async function groupedBy(owners: number, count: number, ownerOf: (k: number) => number, itemOf: (k: number) => number): Promise<Groups> {
  const start = new Int32Array(owners + 1);
  for (let k = 0; k < count; k++) {
    const owner = ownerOf(k);
    if (owner >= 0) start[owner + 1]++;
  }
  for (let o = 1; o <= owners; o++) start[o] += start[o - 1];
  const cursor = start.slice(0, owners);
  const items = new Int32Array(start[owners]);
  await sliced(count, (from, to) => {
    for (let k = from; k < to; k++) {
      const owner = ownerOf(k);
      if (owner >= 0) items[cursor[owner]++] = itemOf(k);
    }
  });
  return { start, items };
}

/** The first position in [lo, hi) whose time is ≥ t. */
function firstAtOrAfter(time: Float64Array, lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Calls `visit` once per person with a kept event in the range (events without a person have no actor). */
export async function forEachPersonSequence(columns: EventColumns, range: DateRange, keep: (i: number) => boolean, visit: Visit): Promise<void> {
  const from = range.from.toMillis();
  const to = range.to.toMillis();
  const { time, distinct, personOf, distinctStart, orderedLength, length, personCount } = columns;
  const orderedDistincts = distinctStart.length - 1;
  const distinctsOf = await groupedBy(personCount, columns.distinctIds.size, (d) => personOf[d], (d) => d);
  const tail: number[] = [];
  for (let i = orderedLength; i < length; i++) if (time[i] >= from && time[i] <= to && keep(i)) tail.push(i);
  const tailOf = await groupedBy(personCount, tail.length, (k) => personOf[distinct[tail[k]]], (k) => tail[k]);
  let events = new Int32Array(256);
  const add = (i: number, n: number) => {
    if (n === events.length) {
      const bigger = new Int32Array(n * 2);
      bigger.set(events);
      events = bigger;
    }
    events[n] = i;
  };
  const sequenceOf = (person: number): number => {
    let n = 0;
    let runs = 0;
    for (let k = distinctsOf.start[person]; k < distinctsOf.start[person + 1]; k++) {
      const code = distinctsOf.items[k];
      if (code >= orderedDistincts) continue;
      const before = n;
      const end = distinctStart[code + 1];
      for (let i = firstAtOrAfter(time, distinctStart[code], end, from); i < end && time[i] <= to; i++) if (keep(i)) add(i, n++);
      if (n > before) runs++;
    }
    for (let k = tailOf.start[person]; k < tailOf.start[person + 1]; k++) add(tailOf.items[k], n++);
    // One distinct id's run is in order already; several runs, or tail events, are merged by a sort.
    if (runs > 1 || (n > 0 && tailOf.start[person + 1] > tailOf.start[person])) sortByTime(columns, events, 0, n);
    return n;
  };
  await sliced(personCount, (first, last) => {
    for (let person = first; person < last; person++) {
      const n = sequenceOf(person);
      if (n > 0) visit(person, events, 0, n);
    }
  });
}

/** A funnel actor's row as funnelEventsSql returns it. */
export interface FunnelSequence {
  actor: string;
  times: number[];
  masks: number[];
  values?: string[];
  names?: string[];
  marks?: boolean[];
}

/** Bit i for step i, then one per exclusion, for each event name code; `any` for entities of every event. */
function masksByCode(columns: EventColumns, query: InsightQuery): { byCode: Int32Array; any: number } {
  const entities = [...query.series.map((s) => s.event), ...(query.funnel?.exclusions ?? []).map((e) => e.event)];
  const byCode = new Int32Array(columns.eventNames.size);
  let any = 0;
  entities.forEach((event, bit) => {
    const code = eventCodeOf(columns, event);
    if (code === -1) any |= 1 << bit;
    else if (code >= 0) byCode[code] |= 1 << bit;
  });
  return { byCode, any };
}

/**
 * A funnel's actors with their events and masks; strict funnels and reads `withNames` keep every event of
 * the range, the others only step, exclusion and marked events. `values` holds each person's breakdown
 * value when the funnel breaks down by one person property.
 */
export async function funnelSequences(
  columns: EventColumns, query: InsightQuery, options: FunnelReadOptions, values: PersonColumn | null, visit: (row: FunnelSequence) => void,
): Promise<void> {
  const { byCode, any } = masksByCode(columns, query);
  const markedCode = options.marked ? eventCodeOf(columns, options.marked.event) : -2;
  const marked = (i: number) => markedCode === -1 || (markedCode >= 0 && columns.event[i] === markedCode);
  const everyEvent = query.funnel?.orderType === 'strict' || options.withNames === true;
  const keep = everyEvent ? () => true : (i: number) => (byCode[columns.event[i]] | any) !== 0 || marked(i);
  const { time, event } = columns;
  await forEachPersonSequence(columns, query.range, keep, (person, events, start, end) => {
    const row: FunnelSequence = { actor: columns.personIds[person], times: gather(events, start, end, (i) => time[i]), masks: gather(events, start, end, (i) => byCode[event[i]] | any) };
    if (values) {
      const value = values.dictionary.values[values.codeOf(person)];
      row.values = new Array<string>(end - start).fill(value);
    }
    if (options.withNames) row.names = gather(events, start, end, (i) => columns.eventNames.values[event[i]]);
    if (options.marked) row.marks = gather(events, start, end, marked);
    visit(row);
  });
}

/** A paths actor's row as pathEventsSql returns it: a page view's URL, a screen's name, or the event's name. */
export async function pathSequences(columns: EventColumns, query: InsightQuery, visit: (row: { actor: string; times: number[]; items: Array<string | null> }) => void): Promise<void> {
  const options = query.paths!;
  const kept = new Uint8Array(columns.eventNames.size);
  columns.eventNames.values.forEach((name, code) => {
    const pathEvent =
      (name === '$pageview' && options.eventTypes.includes('$pageview')) ||
      (name === '$screen' && options.eventTypes.includes('$screen')) ||
      (!name.startsWith('$') && options.eventTypes.includes('custom_event')) ||
      options.customEvents.includes(name);
    kept[code] = pathEvent ? 1 : 0;
  });
  const pageview = columns.eventNames.find('$pageview');
  const screen = columns.eventNames.find('$screen');
  const itemOf = (i: number): string | null => {
    const code = columns.event[i];
    if (code !== pageview && code !== screen) return columns.eventNames.values[code];
    return columns.item[i] < 0 ? null : columns.items.values[columns.item[i]];
  };
  await forEachPersonSequence(columns, query.range, (i) => kept[columns.event[i]] === 1, (person, events, start, end) => {
    visit({ actor: columns.personIds[person], times: gather(events, start, end, (i) => columns.time[i]), items: gather(events, start, end, itemOf) });
  });
}
