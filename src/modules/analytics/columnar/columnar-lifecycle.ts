import { DateTime } from 'luxon';
import type { ActorRow } from '../analytics.repository';
import { sortActors } from '../model/actor-page';
import { bucketKey, intervalStart } from '../model/insight-dates';
import { LIFECYCLE_STATUSES, type InsightQuery, type LifecycleStatus, type Series } from '../model/insight-query';
import { ActivityBits, Buckets, eventCodeOf, forEachEvent, sliced } from './columnar-buckets';
import type { EventColumns } from './event-columns';

/**
 * Stickiness and lifecycle over the in-memory columns, row for row what sql/stickiness-lifecycle.sql.ts
 * returns: who was active in which buckets, then counted per person (stickiness) or classified per
 * person and period (lifecycle).
 */

/** Which buckets of `range` each person was active in. */
async function activity(columns: EventColumns, query: InsightQuery, series: Series, range: { from: DateTime; to: DateTime }): Promise<{ buckets: Buckets; bits: ActivityBits; persons: Int32Array }> {
  const buckets = new Buckets(range, query.interval, query.weekStartDay, query.timezone);
  const bits = new ActivityBits(buckets.count, columns.personCount);
  const persons = new Int32Array(columns.personCount);
  await forEachEvent(columns, eventCodeOf(columns, series.event), range, (i) => {
    const person = columns.personOf[columns.distinct[i]];
    const bucket = buckets.indexOf(columns.time[i]);
    if (person < 0 || bucket < 0 || bits.has(bucket, person)) return;
    bits.set(bucket, person);
    persons[person]++;
  });
  return { buckets, bits, persons };
}

/** How many persons were active in exactly k buckets, per k. */
export async function stickinessCounts(columns: EventColumns, query: InsightQuery, series: Series): Promise<Array<{ intervals: string; value: number }>> {
  const { persons } = await activity(columns, query, series, query.range);
  const perK = new Map<number, number>();
  for (const k of persons) if (k > 0) perK.set(k, (perK.get(k) ?? 0) + 1);
  return [...perK].map(([k, value]) => ({ intervals: String(k), value }));
}

/** The persons active in exactly `days` buckets, in person-id order. */
export async function stickinessActors(columns: EventColumns, query: InsightQuery, series: Series, days: number, page: { limit: number; offset: number }): Promise<ActorRow[]> {
  const { persons } = await activity(columns, query, series, query.range);
  const ids: string[] = [];
  persons.forEach((k, person) => k === days && ids.push(columns.personIds[person]));
  return sortActors(ids, null).slice(page.offset, page.offset + page.limit).map((actor) => ({ actor, value: days }));
}

/** The key index `steps` intervals of local wall time away from each bucket's key (-1: not a bucket). */
function shiftedKeys(buckets: Buckets, interval: string, steps: number): Int32Array {
  const index = new Map(buckets.keys.map((key, i) => [key, i]));
  return Int32Array.from(buckets.keys, (key) => {
    const moved = bucketKey(DateTime.fromISO(key, { zone: 'utc' }).plus({ [`${interval}s`]: steps }));
    return index.get(moved) ?? -1;
  });
}

/** A status as its index in LIFECYCLE_STATUSES (new, returning, resurrecting, dormant). */
const [NEW, RETURNING, RESURRECTING, DORMANT] = (['new', 'returning', 'resurrecting', 'dormant'] as const).map((status) => LIFECYCLE_STATUSES.indexOf(status));

/**
 * Every (person, bucket, status) of the range, for buckets inside it, with the bucket as its index in
 * `buckets` and the status as its index in LIFECYCLE_STATUSES; `created` is each person's creation (ms;
 * undefined without a person row).
 */
async function lifecycleStatuses(
  columns: EventColumns, query: InsightQuery, series: Series, created: ReadonlyArray<number | undefined>,
  visitor: (buckets: Buckets) => (person: number, bucket: number, status: number) => void,
): Promise<void> {
  const first = intervalStart(query.range.from.setZone(query.timezone), query.interval, query.weekStartDay);
  const widened = { from: first.minus({ [`${query.interval}s`]: 1 }), to: query.range.to };
  const { buckets, bits, persons } = await activity(columns, query, series, widened);
  const previousKey = shiftedKeys(buckets, query.interval, -1);
  const nextKey = shiftedKeys(buckets, query.interval, 1);
  const firstShown = buckets.indexOf(first.toMillis());
  const lastShown = buckets.indexOf(intervalStart(query.range.to.setZone(query.timezone), query.interval, query.weekStartDay).toMillis());
  const shown = (bucket: number) => bucket >= firstShown && bucket <= lastShown;
  const visit = visitor(buckets);
  const classify = (person: number) => {
    const createdAt = created[person];
    const createdBucket = createdAt === undefined ? -2 : buckets.indexOf(createdAt);
    let previous = -1;
    for (let bucket = 0; bucket < buckets.count; bucket++) {
      if (!bits.has(bucket, person)) continue;
      if (createdAt !== undefined && shown(bucket)) {
        visit(person, bucket, createdBucket === bucket ? NEW : previous >= 0 && previous === previousKey[bucket] ? RETURNING : RESURRECTING);
      }
      const following = nextKey[bucket];
      if (following >= 0 && !bits.has(following, person) && shown(following)) visit(person, following, DORMANT);
      previous = bucket;
    }
  };
  await sliced(persons.length, (start, end) => {
    for (let person = start; person < end; person++) if (persons[person] > 0) classify(person);
  });
}

/** Persons per (status, bucket) inside the range. */
export async function lifecycleCounts(
  columns: EventColumns, query: InsightQuery, series: Series, created: ReadonlyArray<number | undefined>,
): Promise<Array<{ status: string; bucket: string; value: number }>> {
  let counts = new Int32Array(0);
  let keys: string[] = [];
  await lifecycleStatuses(columns, query, series, created, (buckets) => {
    keys = buckets.keys;
    counts = new Int32Array(LIFECYCLE_STATUSES.length * keys.length);
    return (_, bucket, status) => counts[status * keys.length + bucket]++;
  });
  const rows: Array<{ status: string; bucket: string; value: number }> = [];
  counts.forEach((value, k) => value > 0 && rows.push({ status: LIFECYCLE_STATUSES[Math.floor(k / keys.length)], bucket: keys[k % keys.length], value }));
  return rows;
}
/** The persons holding `status` in the bucket that starts at `target`, in person-id order. */
export async function lifecycleActors(
  columns: EventColumns, query: InsightQuery, series: Series, created: ReadonlyArray<number | undefined>, status: LifecycleStatus, target: DateTime, page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  const targetKey = bucketKey(intervalStart(target.setZone(query.timezone), query.interval, query.weekStartDay));
  const wanted = LIFECYCLE_STATUSES.indexOf(status);
  const ids = new Set<string>();
  await lifecycleStatuses(columns, query, series, created, (buckets) => {
    const target = buckets.keys.indexOf(targetKey);
    return (person, bucket, held) => {
      if (held === wanted && bucket === target) ids.add(columns.personIds[person]);
    };
  });
  return sortActors([...ids], null).slice(page.offset, page.offset + page.limit).map((actor) => ({ actor, value: null }));
}

