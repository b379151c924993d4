import { sliced } from './columnar-buckets';
import type { EventColumns, OrderedEvents } from './event-columns';

/**
 * The copy's events are kept ordered by (distinct id, time, uuid) so that funnels, correlation and paths
 * read each person's events as a few contiguous runs instead of gathering them from all over the columns
 * (random reads across hundreds of megabytes were most of a funnel's time). A distinct id never changes
 * its events, so merges leave the order valid; events appended since the last ordering form a tail that
 * scans group on their own, and the store orders everything again once the tail grows past `tailLimit`.
 */

/** `a` comes before `b`: by time, then by the first 32 bits of the uuid, as `ORDER BY timestamp, uuid`. */
function before(time: Float64Array, tie: Uint32Array, a: number, b: number): boolean {
  return time[a] < time[b] || (time[a] === time[b] && tie[a] < tie[b]);
}

/**
 * Orders `positions[start … end)` by (time, tie) in place: insertion sort, since most runs are a few events
 * (a view or a copy per run costs more than the sort), and a library sort for long ones.
 */
export function sortByTime(columns: EventColumns, positions: Int32Array, start: number, end: number): void {
  const { time, tie } = columns;
  if (end - start > 64) {
    const sorted = Array.from(positions.subarray(start, end)).sort((a, b) => (before(time, tie, a, b) ? -1 : before(time, tie, b, a) ? 1 : 0));
    positions.set(sorted, start);
    return;
  }
  for (let i = start + 1; i < end; i++) {
    const current = positions[i];
    let j = i - 1;
    while (j >= start && before(time, tie, current, positions[j])) {
      positions[j + 1] = positions[j];
      j--;
    }
    positions[j + 1] = current;
  }
}

/** Appended events that make the store order the copy again: a sixteenth of it, and at least 65,536. */
export function tailLimit(length: number): number {
  return Math.max(1 << 16, length >> 4);
}

/**
 * Every event of the copy, ordered by (distinct id code, time, tie), as new arrays: the live columns are
 * only read (scans may use them meanwhile), and the store swaps the result in once no scan runs.
 */
export async function orderByDistinct(columns: EventColumns): Promise<OrderedEvents> {
  const { length, distinct } = columns;
  const distinctCount = columns.distinctIds.size;
  const distinctStart = new Int32Array(distinctCount + 1);
  await sliced(length, (from, to) => {
    for (let i = from; i < to; i++) distinctStart[distinct[i] + 1]++;
  });
  for (let d = 1; d <= distinctCount; d++) distinctStart[d] += distinctStart[d - 1];
  const cursor = distinctStart.slice(0, distinctCount);
  const order = new Int32Array(length);
  await sliced(length, (from, to) => {
    for (let i = from; i < to; i++) order[cursor[distinct[i]]++] = i;
  });
  await sliced(distinctCount, (from, to) => {
    for (let d = from; d < to; d++) if (distinctStart[d + 1] - distinctStart[d] > 1) sortByTime(columns, order, distinctStart[d], distinctStart[d + 1]);
  });
  // Room for the tail that may follow before the next ordering, so appends do not reallocate at once.
  const capacity = length + tailLimit(length);
  const ordered: OrderedEvents = {
    length,
    time: new Float64Array(capacity),
    event: new Int32Array(capacity),
    distinct: new Int32Array(capacity),
    tie: new Uint32Array(capacity),
    item: new Int32Array(capacity),
    distinctStart,
  };
  await sliced(length, (from, to) => {
    for (let k = from; k < to; k++) {
      const i = order[k];
      ordered.time[k] = columns.time[i];
      ordered.event[k] = columns.event[i];
      ordered.distinct[k] = distinct[i];
      ordered.tie[k] = columns.tie[i];
      ordered.item[k] = columns.item[i];
    }
  });
  return ordered;
}
