import { DateTime, DurationLikeObject } from 'luxon';
import { ApiError } from '../../../common/errors/api-error';
import { DateRange, Interval, isSubDay, MAX_BUCKETS } from './insight-query';

/**
 * Dates as PostHog's insights read them: in the project's timezone, relative (`-7d`, `-24h`, `mStart`,
 * `all`) or absolute (a date, or a date and time), with `date_from` rounded down and `date_to` up to the
 * interval unless `explicit_date` says the times are meant exactly.
 */

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const RELATIVE = /^-?(\d{1,5})?([hdwmqy])(Start|End)?$/;
const UNITS: Record<string, keyof DurationLikeObject> = { h: 'hours', d: 'days', w: 'weeks', m: 'months', q: 'quarters', y: 'years' };
const PERIODS: Record<string, 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year'> = { h: 'hour', d: 'day', w: 'week', m: 'month', q: 'quarter', y: 'year' };
export const DEFAULT_DATE_FROM = '-7d';

/** A parsed date and whether it was relative in hours (which keeps hour precision when rounded). */
interface ParsedDate {
  at: DateTime;
  dateOnly: boolean;
  hourly: boolean;
}

/** One `date_from` / `date_to` value, or an ApiError naming `attr`. */
export function parseInsightDate(raw: string, attr: string, zone: string, now: DateTime): ParsedDate {
  const text = raw.trim();
  const relative = RELATIVE.exec(text);
  if (relative) {
    const [, amount, unit, position] = relative;
    let at = now.setZone(zone).minus({ [UNITS[unit]]: Number(amount ?? 0) });
    if (position === 'Start') at = at.startOf(PERIODS[unit]);
    if (position === 'End') at = at.endOf(PERIODS[unit]);
    return { at, dateOnly: false, hourly: unit === 'h' };
  }
  const at = DATE_ONLY.test(text) ? DateTime.fromISO(text, { zone }) : absoluteDateTime(text, zone);
  if (!at.isValid) {
    throw ApiError.validation(`${attr} "${raw}" is not a date: use a date (2024-01-31), a date and time (2024-01-31T12:00:00Z) or a relative date (-7d, -24h, mStart, all).`, attr);
  }
  return { at, dateOnly: DATE_ONLY.test(text), hourly: false };
}

/** ISO 8601 with `T` or a space; an offset in the text wins over the project's zone. */
function absoluteDateTime(text: string, zone: string): DateTime {
  const iso = DateTime.fromISO(text, { zone, setZone: true });
  const parsed = iso.isValid ? iso : DateTime.fromSQL(text, { zone, setZone: true });
  return parsed.isValid ? parsed.setZone(zone) : parsed;
}

/** The start of the bucket holding `at`: weeks start on Sunday (0) or Monday (1). */
export function intervalStart(at: DateTime, interval: Interval, weekStartDay: 0 | 1): DateTime {
  if (interval !== 'week') return at.startOf(interval);
  const day = at.startOf('day');
  // luxon's weekday: Monday 1 … Sunday 7.
  const back = weekStartDay === 1 ? day.weekday - 1 : day.weekday % 7;
  return day.minus({ days: back });
}

export function nextInterval(at: DateTime, interval: Interval): DateTime {
  return at.plus({ [`${interval}s`]: 1 });
}

export interface RangeRequest {
  dateFrom: string | null;
  dateTo: string | null;
  interval: Interval;
  zone: string;
  now: DateTime;
  explicit: boolean;
  /** For `date_from=all`: the project's earliest event (null when it has none). */
  earliest: () => DateTime | null;
}

/** Resolves `date_from`/`date_to` into a closed range, refusing one that ends before it starts. */
export function resolveRange(request: RangeRequest, weekStartDay: 0 | 1): DateRange {
  const { interval, zone, now, explicit } = request;
  const to = resolveTo(request);
  let from: DateTime;
  if (request.dateFrom === 'all') {
    from = (request.earliest() ?? to).setZone(zone).startOf(isSubDay(interval) ? interval : 'day');
  } else {
    const parsed = parseInsightDate(request.dateFrom ?? DEFAULT_DATE_FROM, 'date_from', zone, now);
    from = explicit ? parsed.at : parsed.at.startOf(isSubDay(interval) ? interval : parsed.hourly ? 'hour' : 'day');
  }
  if (!explicit && (interval === 'week' || interval === 'month')) from = intervalStart(from, interval, weekStartDay);
  if (from > to) throw ApiError.validation(`date_from (${from.toISO()}) is after date_to (${to.toISO()}): swap them or widen the range.`, 'date_from');
  return { from, to, requestedFrom: request.dateFrom, requestedTo: request.dateTo, explicit };
}

function resolveTo(request: RangeRequest): DateTime {
  const { interval, zone, now, explicit } = request;
  const precision = isSubDay(interval) ? interval : 'day';
  if (request.dateTo === null) return now.setZone(zone).endOf(precision);
  const parsed = parseInsightDate(request.dateTo, 'date_to', zone, now);
  if (explicit && !parsed.dateOnly) return parsed.at;
  return parsed.at.endOf(parsed.dateOnly ? 'day' : precision);
}

/** Every bucket start from the one holding `from` to the one holding `to`, refusing more than MAX_BUCKETS. */
export function bucketStarts(range: DateRange, interval: Interval, weekStartDay: 0 | 1): DateTime[] {
  const last = intervalStart(range.to, interval, weekStartDay);
  const starts: DateTime[] = [];
  for (let at = intervalStart(range.from, interval, weekStartDay); at <= last; at = nextInterval(at, interval)) {
    if (starts.length >= MAX_BUCKETS) {
      throw ApiError.validation(`This range has more than ${MAX_BUCKETS} ${interval} intervals: narrow date_from/date_to or use a longer interval.`, 'interval');
    }
    starts.push(at);
  }
  return starts;
}

/** The key buckets are matched by between SQL rows and the JavaScript series (local wall time). */
export function bucketKey(at: DateTime): string {
  return at.toFormat("yyyy-MM-dd'T'HH:mm:ss");
}

/** PostHog's `labels` ("1-Jan-2020", "+ HH:mm" for hours) and `days` ("2020-01-01", "+ HH:mm:ss"). */
export function bucketLabel(at: DateTime, interval: Interval): string {
  return at.toFormat(isSubDay(interval) ? 'd-MMM-yyyy HH:mm' : 'd-MMM-yyyy');
}

export function bucketDay(at: DateTime, interval: Interval): string {
  return at.toFormat(isSubDay(interval) ? 'yyyy-MM-dd HH:mm:ss' : 'yyyy-MM-dd');
}

/** The same range moved back by its own length (compare's previous period). */
export function previousRange(range: DateRange): DateRange {
  const length = range.to.diff(range.from);
  return { ...range, from: range.from.minus(length).minus({ milliseconds: 1 }), to: range.from.minus({ milliseconds: 1 }) };
}
