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

/** Events of one person as positions in the columns, in (time, uuid) order. */
type Visit = (person: number, events: Int32Array) => void;

/** Orders positions by (time, first 32 bits of the uuid): insertion sort, since most persons have few events. */
function sortByTime(columns: EventColumns, events: Int32Array): void {
  const { time, tie } = columns;
  const before = (a: number, b: number) => time[a] < time[b] || (time[a] === time[b] && tie[a] < tie[b]);
  if (events.length > 64) {
    const sorted = Array.from(events).sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    events.set(sorted);
    return;
  }
  for (let i = 1; i < events.length; i++) {
    const current = events[i];
    let j = i - 1;
    while (j >= 0 && before(current, events[j])) {
      events[j + 1] = events[j];
      j--;
    }
    events[j + 1] = current;
  }
}

/** Calls `visit` once per person with a kept event in the range (events without a person have no actor). */
export async function forEachPersonSequence(columns: EventColumns, range: DateRange, keep: (i: number) => boolean, visit: Visit): Promise<void> {
  const from = range.from.toMillis();
  const to = range.to.toMillis();
  const { time, distinct, personOf, length } = columns;
  const counts = new Int32Array(columns.personCount + 1);
  let picked = new Int32Array(1024);
  let total = 0;
  await sliced(length, (i) => {
    if (time[i] < from || time[i] > to || !keep(i)) return;
    const person = personOf[distinct[i]];
    if (person < 0) return;
    if (total === picked.length) {
      const bigger = new Int32Array(picked.length * 2);
      bigger.set(picked);
      picked = bigger;
    }
    picked[total++] = i;
    counts[person + 1]++;
  });
  for (let p = 1; p < counts.length; p++) counts[p] += counts[p - 1];
  const grouped = new Int32Array(total);
  const cursor = counts.slice(0, columns.personCount);
  for (let k = 0; k < total; k++) grouped[cursor[personOf[distinct[picked[k]]]]++] = picked[k];
  // Persons are visited in slices too: what the visitor does per person (a funnel's evaluation) is the larger cost.
  await sliced(counts.length - 1, (person) => {
    if (counts[person + 1] === counts[person]) return;
    const events = grouped.subarray(counts[person], counts[person + 1]);
    sortByTime(columns, events);
    visit(person, events);
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
  await forEachPersonSequence(columns, query.range, keep, (person, events) => {
    const list = Array.from(events);
    const row: FunnelSequence = { actor: columns.personIds[person], times: list.map((i) => columns.time[i]), masks: list.map((i) => byCode[columns.event[i]] | any) };
    if (values) {
      const value = values.dictionary.values[values.codeOf(person)];
      row.values = list.map(() => value);
    }
    if (options.withNames) row.names = list.map((i) => columns.eventNames.values[columns.event[i]]);
    if (options.marked) row.marks = list.map(marked);
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
  await forEachPersonSequence(columns, query.range, (i) => kept[columns.event[i]] === 1, (person, events) => {
    const list = Array.from(events);
    visit({ actor: columns.personIds[person], times: list.map((i) => columns.time[i]), items: list.map(itemOf) });
  });
}
