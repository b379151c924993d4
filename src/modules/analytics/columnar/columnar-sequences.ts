import type { DateRange, InsightQuery } from '../model/insight-query';
import type { FunnelReadOptions } from '../sql/funnel.sql';
import { eventCodeOf, sliced } from './columnar-buckets';
import type { EventColumns, PersonColumn } from './event-columns';

/**
 * Each person's events in time order, built from the in-memory columns: the rows that
 * `actorSequencesSql` gives funnels and paths (`times` plus aligned columns, ordered by timestamp then
 * uuid), so the same pure evaluation runs on either. Events are grouped by person with a counting sort
 * (two passes), then each person's few events are put in order.
 */

/** One person's events: positions in the columns, `events[start … end)`, in (time, uuid) order. */
type Visit = (person: number, events: Int32Array, start: number, end: number) => void;

/**
 * Orders `events[start … end)` by (time, first 32 bits of the uuid) in place: insertion sort, since most
 * persons have few events (no view or copy is made per person: they cost more than the sort).
 */
function sortByTime(columns: EventColumns, events: Int32Array, start: number, end: number): void {
  const { time, tie } = columns;
  const before = (a: number, b: number) => time[a] < time[b] || (time[a] === time[b] && tie[a] < tie[b]);
  if (end - start > 64) {
    const sorted = Array.from(events.subarray(start, end)).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    events.set(sorted, start);
    return;
  }
  for (let i = start + 1; i < end; i++) {
    const current = events[i];
    let j = i - 1;
    while (j >= start && before(current, events[j])) {
      events[j + 1] = events[j];
      j--;
    }
    events[j + 1] = current;
  }
}

/** `column(events[k])` for k in [start, end), as a plain array. */
function gather<T>(events: Int32Array, start: number, end: number, column: (i: number) => T): T[] {
  const out = new Array<T>(end - start);
  for (let k = start; k < end; k++) out[k - start] = column(events[k]);
  return out;
}

/** Calls `visit` once per person with a kept event in the range (events without a person have no actor). */
export async function forEachPersonSequence(columns: EventColumns, range: DateRange, keep: (i: number) => boolean, visit: Visit): Promise<void> {
  const from = range.from.toMillis();
  const to = range.to.toMillis();
  const { time, distinct, personOf, length } = columns;
  const counts = new Int32Array(columns.personCount + 1);
  let picked = new Int32Array(1024);
  let total = 0;
  await sliced(length, (start, end) => {
    for (let i = start; i < end; i++) {
      if (time[i] < from || time[i] > to || !keep(i)) continue;
      const person = personOf[distinct[i]];
      if (person < 0) continue;
      if (total === picked.length) {
        const bigger = new Int32Array(picked.length * 2);
        bigger.set(picked);
        picked = bigger;
      }
      picked[total++] = i;
      counts[person + 1]++;
    }
  });
  for (let p = 1; p < counts.length; p++) counts[p] += counts[p - 1];
  const grouped = new Int32Array(total);
  const cursor = counts.slice(0, columns.personCount);
  await sliced(total, (start, end) => {
    for (let k = start; k < end; k++) grouped[cursor[personOf[distinct[picked[k]]]]++] = picked[k];
  });
  // Persons are visited in slices too: what the visitor does per person (a funnel's evaluation) is the larger cost.
  await sliced(counts.length - 1, (first, last) => {
    for (let person = first; person < last; person++) {
      const start = counts[person];
      const end = counts[person + 1];
      if (start === end) continue;
      sortByTime(columns, grouped, start, end);
      visit(person, grouped, start, end);
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
