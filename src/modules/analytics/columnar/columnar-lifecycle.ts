import { DateTime } from 'luxon';
import type { ActorRow } from '../analytics.repository';
import { sortActors } from '../model/actor-page';
import { bucketKey, intervalStart } from '../model/insight-dates';
import type { InsightQuery, LifecycleStatus, Series } from '../model/insight-query';
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

/** Every (person, bucket, status) of the range, for buckets inside it; `created` is each person's creation (ms; undefined without a person row). */
async function lifecycleStatuses(
  columns: EventColumns, query: InsightQuery, series: Series, created: ReadonlyArray<number | undefined>, visit: (person: number, key: string, status: LifecycleStatus) => void,
): Promise<void> {
  const first = intervalStart(query.range.from.setZone(query.timezone), query.interval, query.weekStartDay);
  const widened = { from: first.minus({ [`${query.interval}s`]: 1 }), to: query.range.to };
  const { buckets, bits, persons } = await activity(columns, query, series, widened);
  const previousKey = shiftedKeys(buckets, query.interval, -1);
  const nextKey = shiftedKeys(buckets, query.interval, 1);
  const firstShown = buckets.indexOf(first.toMillis());
  const lastShown = buckets.indexOf(intervalStart(query.range.to.setZone(query.timezone), query.interval, query.weekStartDay).toMillis());
  const shown = (bucket: number) => bucket >= firstShown && bucket <= lastShown;
  await sliced(persons.length, (person) => {
    if (persons[person] === 0) return;
    const createdAt = created[person];
    const createdBucket = createdAt === undefined ? -2 : buckets.indexOf(createdAt);
    let previous = -1;
    for (let bucket = 0; bucket < buckets.count; bucket++) {
      if (!bits.has(bucket, person)) continue;
      if (createdAt !== undefined && shown(bucket)) {
        const status = createdBucket === bucket ? 'new' : previous >= 0 && previous === previousKey[bucket] ? 'returning' : 'resurrecting';
        visit(person, buckets.keys[bucket], status);
      }
      const following = nextKey[bucket];
      if (following >= 0 && !bits.has(following, person) && shown(following)) visit(person, buckets.keys[following], 'dormant');
      previous = bucket;
    }
  });
}

/** Persons per (status, bucket) inside the range. */
export async function lifecycleCounts(
  columns: EventColumns, query: InsightQuery, series: Series, created: ReadonlyArray<number | undefined>,
): Promise<Array<{ status: string; bucket: string; value: number }>> {
  const counts = new Map<string, number>();
  await lifecycleStatuses(columns, query, series, created, (_, bucket, status) => {
    const key = `${status} ${bucket}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return [...counts].map(([key, value]) => {
    const [status, bucket] = key.split(' ');
    return { status, bucket, value };
  });
}

/** The persons holding `status` in the bucket that starts at `target`, in person-id order. */
export async function lifecycleActors(
  columns: EventColumns, query: InsightQuery, series: Series, created: ReadonlyArray<number | undefined>, status: LifecycleStatus, target: DateTime, page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  const targetKey = bucketKey(intervalStart(target.setZone(query.timezone), query.interval, query.weekStartDay));
  const ids = new Set<string>();
  await lifecycleStatuses(columns, query, series, created, (person, key, held) => {
    if (held === status && key === targetKey) ids.add(columns.personIds[person]);
  });
  return sortActors([...ids], null).slice(page.offset, page.offset + page.limit).map((actor) => ({ actor, value: null }));
}

