import type { ActorRow, PointRow } from '../analytics.repository';
import { byteOrder } from '../model/actor-page';
import type { DateRange, InsightQuery, Series } from '../model/insight-query';
import type { BreakdownSlice } from '../sql/trends.sql';
import { ActivityBits, Buckets, eventCodeOf, forEachEvent } from './columnar-buckets';
import type { EventColumns, PersonColumn } from './event-columns';

/**
 * Trends over the in-memory columns: the same rows the SQL of sql/trends.sql.ts and sql/actors.sql.ts
 * returns for the queries columnar-support.ts accepts (total and dau maths, no filters, no breakdown or
 * one person-property breakdown), so the services and presenters cannot tell which one answered.
 */

/** The breakdown value code of event i: its person's value, or the null marker (code 0) for an event without a person. */
function codeOf(columns: EventColumns, values: PersonColumn, i: number): number {
  return values.codeOf(columns.personOf[columns.distinct[i]]);
}

/** Which line of a slice event i belongs to, or -1 when the slice leaves it out. */
function lineFinder(columns: EventColumns, slice: BreakdownSlice, values: PersonColumn | null): (i: number) => number {
  if (slice === null || values === null) return () => 0;
  if (slice.kind === 'cohort') throw new Error('cohort slices are read from PostgreSQL');
  const shown = slice.kind === 'values' ? slice.values : slice.values.slice(0, 1);
  const lineOfCode = new Int32Array(values.dictionary.size).fill(-1);
  shown.forEach((value, line) => {
    const code = values.dictionary.find(value);
    if (code !== undefined) lineOfCode[code] = line;
  });
  return (i) => lineOfCode[codeOf(columns, values, i)];
}

/** A series' points per (breakdown line, bucket): event counts (`total`) or distinct persons (`dau`). */
export async function trendPoints(
  columns: EventColumns, query: InsightQuery, series: Series, range: DateRange, slice: BreakdownSlice, aggregate: boolean, values: PersonColumn | null,
): Promise<PointRow[]> {
  const buckets = aggregate ? null : new Buckets(range, query.interval, query.weekStartDay, query.timezone);
  const width = buckets?.count ?? 1;
  const lineCount = slice?.kind === 'values' ? slice.values.length : 1;
  const lineOf = lineFinder(columns, slice, values);
  const distinct = series.math === 'dau';
  const counts = new Float64Array(lineCount * width);
  const active = distinct ? new ActivityBits(lineCount * width, columns.personCount) : null;
  await forEachEvent(columns, eventCodeOf(columns, series.event), range, (i) => {
    const line = lineOf(i);
    const bucket = buckets ? buckets.indexOf(columns.time[i]) : 0;
    if (line < 0 || bucket < 0) return;
    if (!active) {
      counts[line * width + bucket]++;
      return;
    }
    const person = columns.personOf[columns.distinct[i]];
    if (person >= 0) active.set(line * width + bucket, person);
  });
  const rows: PointRow[] = [];
  for (let line = 0; line < lineCount; line++) {
    for (let bucket = 0; bucket < width; bucket++) {
      const value = active ? active.count(line * width + bucket) : counts[line * width + bucket];
      if (value === 0) continue;
      rows.push({ breakdown_value: slice?.kind === 'values' ? slice.values[line] : null, bucket: buckets ? buckets.keys[bucket] : null, value });
    }
  }
  return rows;
}

/** The breakdown values with the most events over every series, one page (plus one row to tell `next`). */
export async function topBreakdownValues(columns: EventColumns, query: InsightQuery, values: PersonColumn, limit: number, offset: number): Promise<Array<{ value: string; events: string }>> {
  const codes = new Set(query.series.map((s) => eventCodeOf(columns, s.event)));
  const anyEvent = codes.has(-1);
  const counts = new Float64Array(values.dictionary.size);
  await forEachEvent(columns, -1, query.range, (i) => {
    if (anyEvent || codes.has(columns.event[i])) counts[codeOf(columns, values, i)]++;
  });
  const ranked: Array<[string, number]> = [];
  counts.forEach((events, code) => events > 0 && ranked.push([values.dictionary.values[code], events]));
  ranked.sort(([a, x], [b, y]) => y - x || byteOrder(a, b));
  return ranked.slice(offset, offset + limit + 1).map(([value, events]) => ({ value, events: String(events) }));
}

/** The persons behind one trends point with their event counts, largest first, then by person id descending. */
export async function trendActors(
  columns: EventColumns, series: Series, range: DateRange, slice: BreakdownSlice, values: PersonColumn | null, page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  const lineOf = lineFinder(columns, slice, values);
  const counts = new Map<number, number>();
  await forEachEvent(columns, eventCodeOf(columns, series.event), range, (i) => {
    const person = columns.personOf[columns.distinct[i]];
    if (person >= 0 && lineOf(i) >= 0) counts.set(person, (counts.get(person) ?? 0) + 1);
  });
  const rows = [...counts].map(([person, value]) => ({ actor: columns.personIds[person], value }));
  rows.sort((a, b) => b.value - a.value || Number(b.actor) - Number(a.actor));
  return rows.slice(page.offset, page.offset + page.limit);
}

