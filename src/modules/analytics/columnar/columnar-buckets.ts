import { DateTime } from 'luxon';
import { bucketKey, intervalStart, nextInterval } from '../model/insight-dates';
import type { DateRange, Interval } from '../model/insight-query';
import type { EventColumns } from './event-columns';

/**
 * The buckets of a range as the SQL groups them: the local wall time of each bucket's start, in the
 * project's zone. Instants map to a bucket by binary search over the bucket starts; two starts with the
 * same wall time (an hour repeated when clocks go back) share one key, as `date_trunc` on local time does.
 */
export class Buckets {
  /** Distinct keys in time order. */
  readonly keys: string[] = [];
  private readonly starts: Float64Array;
  /** start index → key index. */
  private readonly keyOfStart: Int32Array;
  private readonly end: number;

  constructor(range: { from: DateTime; to: DateTime }, interval: Interval, weekStartDay: 0 | 1, zone: string) {
    const starts: number[] = [];
    const keyOfStart: number[] = [];
    const byKey = new Map<string, number>();
    const to = range.to.setZone(zone);
    let at = intervalStart(range.from.setZone(zone), interval, weekStartDay);
    for (; at <= to; at = nextInterval(at, interval)) {
      const key = bucketKey(at);
      let index = byKey.get(key);
      if (index === undefined) {
        index = this.keys.length;
        byKey.set(key, index);
        this.keys.push(key);
      }
      starts.push(at.toMillis());
      keyOfStart.push(index);
    }
    this.starts = Float64Array.from(starts);
    this.keyOfStart = Int32Array.from(keyOfStart);
    this.end = at.toMillis();
  }

  get count(): number {
    return this.keys.length;
  }

  /** The key index of an instant (ms), or -1 outside the buckets. */
  indexOf(time: number): number {
    const starts = this.starts;
    if (starts.length === 0 || time < starts[0] || time >= this.end) return -1;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= time) low = middle;
      else high = middle - 1;
    }
    return this.keyOfStart[low];
  }
}

/** The events one entity reads: its name's code (-2: a name no event has, so nothing), or -1 for any event. */
export function eventCodeOf(columns: EventColumns, event: string | null): number {
  if (event === null) return -1;
  return columns.eventNames.find(event) ?? -2;
}

/**
 * Scans give their thread's event loop back whenever they have held it for SCAN_SLICE_MS: on the analytics
 * thread, so several insights (and their refreshes) progress together; on the HTTP thread (ANALYTICS_THREAD
 * off), so captures and flag evaluations are served between slices. The store lets no refresh change the
 * copy while a scan is paused (see ColumnarStore.read).
 */
const SCAN_SLICE_MS = 4;

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Items visited between two looks at the clock. */
const CHUNK = 4096;

/**
 * Calls `chunk(from, to)` over [0, count) in order, in runs of CHUNK items, pausing once SCAN_SLICE_MS have
 * passed. Each caller writes its own loop over a run: a loop that called one shared visitor per item would
 * be a call V8 cannot inline (many visitors pass through it), which cost more than the work of each item.
 */
export async function sliced(count: number, chunk: (from: number, to: number) => void): Promise<void> {
  let sliceStart = performance.now();
  for (let i = 0; i < count; ) {
    const to = Math.min(count, i + CHUNK);
    chunk(i, to);
    i = to;
    if (i < count && performance.now() - sliceStart > SCAN_SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}

/** Calls `visit(i)` for each event of `code` (see eventCodeOf) inside the closed range, in storage order. */
export async function forEachEvent(columns: EventColumns, code: number, range: DateRange | { from: DateTime; to: DateTime }, visit: (i: number) => void): Promise<void> {
  if (code === -2) return;
  const from = range.from.toMillis();
  const to = range.to.toMillis();
  const { time, event } = columns;
  await sliced(columns.length, (start, end) => {
    for (let i = start; i < end; i++) if ((code === -1 || event[i] === code) && time[i] >= from && time[i] <= to) visit(i);
  });
}

/** One bit per (bucket, person): who was active when, for distinct counts, stickiness and lifecycle. */
export class ActivityBits {
  private readonly words: Uint32Array;
  private readonly stride: number;

  constructor(buckets: number, persons: number) {
    if (buckets * persons > MAX_ACTIVITY_BITS) throw new ScanTooLarge(`${buckets} buckets × ${persons} persons`);
    this.stride = (persons + 31) >>> 5;
    this.words = new Uint32Array(this.stride * buckets);
  }

  set(bucket: number, person: number): void {
    this.words[bucket * this.stride + (person >>> 5)] |= 1 << (person & 31);
  }

  has(bucket: number, person: number): boolean {
    return (this.words[bucket * this.stride + (person >>> 5)] & (1 << (person & 31))) !== 0;
  }

  /** Persons set in one bucket. */
  count(bucket: number): number {
    let total = 0;
    const end = (bucket + 1) * this.stride;
    for (let w = bucket * this.stride; w < end; w++) total += popcount(this.words[w]);
    return total;
  }
}

function popcount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The bits one scan may allocate (buckets × persons, 256 MB); a larger scan is left to PostgreSQL. */
const MAX_ACTIVITY_BITS = 2 ** 31;

/** A scan that would hold more than a scan may: the store gives the query to PostgreSQL instead. */
export class ScanTooLarge extends Error {}
