import { DateTime } from 'luxon';
import { bucketKey } from '../model/insight-dates';
import type { InsightQuery } from '../model/insight-query';
import { ActivityBits, Buckets, eventCodeOf, sliced } from './columnar-buckets';
import type { EventColumns } from './event-columns';

/**
 * Retention without a breakdown over the in-memory columns, row for row what sql/retention.sql.ts
 * returns: each person's cohorts (their first target event of all time, or every period with one), the
 * periods they came back in, and per cohort how many persons came back k periods later.
 */

/** PostgreSQL's round(): halves away from zero. */
function sqlRound(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** The SQL period number of each bucket: local wall time from the range's start, in whole periods. */
function periodNumbers(buckets: Buckets, query: InsightQuery): Int32Array {
  const wall = (text: string) => DateTime.fromISO(text, { zone: 'utc' });
  const from = wall(bucketKey(query.range.from.setZone(query.timezone)));
  const seconds = { hour: 3600, day: 86_400, week: 604_800, month: 0 }[query.interval];
  return Int32Array.from(buckets.keys, (key) => {
    const at = wall(key);
    if (query.interval === 'month') return (at.year - from.year) * 12 + at.month - from.month;
    return sqlRound(at.diff(from, 'seconds').seconds / seconds);
  });
}

interface Cohorts {
  /** Per person: the cohort's bucket (first-time retention), -1 for none. */
  first: Int32Array | null;
  /** Per (bucket, person): a target event there (recurring retention). */
  recurring: ActivityBits | null;
  returned: ActivityBits;
  period: Int32Array;
  buckets: Buckets;
}

async function cohorts(columns: EventColumns, query: InsightQuery): Promise<Cohorts> {
  const options = query.retention!;
  const buckets = new Buckets(query.range, query.interval, query.weekStartDay, query.timezone);
  const from = query.range.from.toMillis();
  const to = query.range.to.toMillis();
  const target = eventCodeOf(columns, options.target.event);
  const returning = eventCodeOf(columns, options.returning.event);
  const persons = columns.personCount;
  const returned = new ActivityBits(buckets.count, persons);
  const recurring = options.type === 'recurring' ? new ActivityBits(buckets.count, persons) : null;
  const firstTime = options.type === 'first_time' ? new Float64Array(persons).fill(Infinity) : null;
  const { time, event, distinct, personOf } = columns;
  await sliced(columns.length, (start, end) => {
    for (let i = start; i < end; i++) {
      const t = time[i];
      if (t > to) continue;
      const person = personOf[distinct[i]];
      if (person < 0) continue;
      const code = event[i];
      const isTarget = target === -1 || code === target;
      // First-time retention reads target events of all time: the cohort is the person's first one ever.
      if (firstTime && isTarget && t < firstTime[person]) firstTime[person] = t;
      if (t < from) continue;
      const bucket = buckets.indexOf(t);
      if (bucket < 0) continue;
      if (recurring && isTarget) recurring.set(bucket, person);
      if (returning === -1 || code === returning) returned.set(bucket, person);
    }
  });
  const first = firstTime ? Int32Array.from(firstTime, (t) => (t === Infinity ? -1 : buckets.indexOf(t))) : null;
  return { first, recurring, returned, period: periodNumbers(buckets, query), buckets };
}

/** Each person's cohorts (SQL period numbers ≥ 0) and the periods they came back in, for persons with a cohort. */
async function forEachCohortMember(columns: EventColumns, query: InsightQuery, visit: (person: number, cohort: number, returnedPeriods: number[]) => void): Promise<void> {
  const { first, recurring, returned, period, buckets } = await cohorts(columns, query);
  const member = (person: number) => {
    const cohortBuckets: number[] = [];
    if (first && first[person] >= 0) cohortBuckets.push(first[person]);
    if (recurring) for (let b = 0; b < buckets.count; b++) if (recurring.has(b, person)) cohortBuckets.push(b);
    if (cohortBuckets.length === 0) return;
    const back: number[] = [];
    for (let b = 0; b < buckets.count; b++) if (returned.has(b, person)) back.push(period[b]);
    for (const bucket of cohortBuckets) if (period[bucket] >= 0) visit(person, period[bucket], back);
  };
  await sliced(columns.personCount, (start, end) => {
    for (let person = start; person < end; person++) member(person);
  });
}

/** Rows of `(line, interval, value)`: a cohort's distinct persons retained `interval` periods after it (0: its size). */
export async function retentionCounts(columns: EventColumns, query: InsightQuery): Promise<Array<{ line: string; interval: string; value: number }>> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  await forEachCohortMember(columns, query, (_, cohort, back) => {
    add(`${cohort}/0`);
    for (const later of new Set(back.filter((p) => p > cohort))) add(`${cohort}/${later - cohort}`);
  });
  return [...counts].map(([key, value]) => {
    const [line, interval] = key.split('/');
    return { line, interval, value };
  });
}

/** The persons of one cohort, each with the intervals they came back in. */
export async function retentionActors(columns: EventColumns, query: InsightQuery, cohort: number): Promise<Array<{ actor: string; intervals: number[] }>> {
  const rows: Array<{ actor: string; intervals: number[] }> = [];
  await forEachCohortMember(columns, query, (person, held, back) => {
    if (held === cohort) rows.push({ actor: columns.personIds[person], intervals: [...new Set(back.filter((p) => p > held).map((p) => p - held))] });
  });
  return rows;
}
