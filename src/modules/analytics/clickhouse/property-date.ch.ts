import type { ChParams } from '../engine/ch-sql';
import { bindDouble, chLet, chLiteral } from './sql-text.ch';
import type { PropertyTarget } from './property-target.ch';

/**
 * `is_date_before/after/exact` read a property's date as the PostgreSQL function `property_epoch_ms` does
 * (migration ManagementReads), in epoch milliseconds as a double:
 * - a JSON number is unix seconds;
 * - a string of at most 15 integer and 20 fraction digits is unix seconds too;
 * - any other string of at most 64 characters starting `YYYY-M-D` is what `::timestamptz` makes of it,
 *   anything else (and any error) is NULL.
 * PostgreSQL's date parser takes far more than ISO 8601 (`allballs`, `PST`, `BC`, zone names, `10:00 pm`);
 * here the forms dates are sent in are read with exactly its checks and rounding, and the rest is no date:
 * `YYYY-M-D`, then `T` or spaces and `H:M[:S[.fraction]]`, then `Z` or `±HH[[:]MM]`. Strings without an offset
 * are read as UTC; PostgreSQL reads them in its session TimeZone, which is UTC unless the server was set up
 * otherwise (the service never sets it).
 */

const WS = String.raw`[\t\n\v\f\r ]`;
const SECONDS = String.raw`^${WS}*-?[0-9]{1,15}(\.[0-9]{1,20})?${WS}*$`;
const ISO =
  String.raw`^${WS}*([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})` +
  String.raw`(?:(?:[Tt]|${WS}+)([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(\.[0-9]*)?)?` +
  String.raw`(?:${WS}*(?:([Zz])|([+-])([0-9]{2})(?::?([0-9]{2}))?))?)?${WS}*$`;
const COMPARISONS: Record<string, string> = { is_date_before: '<', is_date_after: '>', is_date_exact: '=' };
// Below this many seconds from 1970, microseconds stay under 2^53 and convert to doubles exactly.
const EXACT_SECONDS = '9007199253';

/**
 * Days since 1970-01-01 of a proleptic Gregorian date, year ≥ 1, month 1–12: integer arithmetic, as DateTime
 * types stop at 1900 and 2299. 477 leap years come before 1970.
 */
function daysSql(y: string, m: string, d: string, leap: string): string {
  const leapsBefore = `(intDiv(${y} - 1, 4) - intDiv(${y} - 1, 100) + intDiv(${y} - 1, 400) - 477)`;
  return `(365 * (${y} - 1970) + ${leapsBefore} + [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][${m}] + if(${m} > 2, ${leap}, 0) + ${d} - 1)`;
}

/**
 * The epoch milliseconds of seconds and microseconds, rounded once as PostgreSQL rounds its exact quotient:
 * whole milliseconds are exact; below 2^53 microseconds one division rounds once; further out, a double
 * integer plus a fraction that cannot fall on a rounding tie.
 */
function epochMsOfSql(seconds: string, fsec: string): string {
  const ms = `(${seconds} * 1000 + intDiv(${fsec}, 1000))`;
  return `multiIf(${fsec} % 1000 = 0, toFloat64(${ms}), abs(${seconds}) < ${EXACT_SECONDS}, (${seconds} * 1000000 + ${fsec}) / 1000,
    toFloat64(${ms}) + (${fsec} % 1000) / 1000)`;
}

/** The ISO forms' epoch milliseconds, NULL where PostgreSQL raises (field out of range). */
function isoEpochMsSql(text: string): string {
  const [g, n, t] = ['__date', '__fields', '__time'];
  const [y, m, d, h, mi, s, oh, om] = [1, 2, 3, 4, 5, 6, 10, 11].map((i) => `${n}[${i}]`);
  const [seconds, fsec] = [`${t}[1]`, `${t}[2]`];
  const leap = `((${y} % 4 = 0 AND ${y} % 100 != 0) OR ${y} % 400 = 0)`;
  // Out of range months index past the list: 0 days, so the day check fails too.
  const monthDays = `[31, 28 + ${leap}, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][${m}]`;
  // PostgreSQL's range checks (ValidateDate, time_overflows: 24:00:00 and second 60 are allowed, no time past
  // 24:00:00). A multiIf of refusals, not one AND: the analyzer plans a long AND far slower.
  const refused = [
    `${y} < 1`, `${m} NOT BETWEEN 1 AND 12`, `${d} NOT BETWEEN 1 AND ${monthDays}`, `${h} > 24`, `${mi} > 59`, `${s} > 60`,
    `((${h} * 60 + ${mi}) * 60 + ${s}) * 1000000 + ${fsec} > 86400000000`, `${oh} > 15`, `${om} > 59`,
  ].map((condition) => `${condition}, NULL`);
  const offset = `(if(${g}[9] = '-', -1, 1) * (${oh} * 3600 + ${om} * 60))`;
  const secondsOf = `(${daysSql(y, m, d, leap)} * 86400 + ${h} * 3600 + ${mi} * 60 + ${s} - ${offset})`;
  // PostgreSQL: strtod of the fraction, times 10^6, rint (ClickHouse's round on doubles is half-to-even too).
  const fsecOf = `toInt64(round(toFloat64OrZero(concat('0', ${g}[7])) * 1000000))`;
  const body = chLet(t, `[${secondsOf}, ${fsecOf}]`, `multiIf(${refused.join(', ')}, ${epochMsOfSql(seconds, fsec)})`);
  const fields = chLet(n, `arrayMap(x -> toInt64OrZero(x), ${g})`, body);
  return `if(match(${text}, ${chLiteral(ISO)}), ${chLet(g, `extractGroups(${text}, ${chLiteral(ISO)})`, fields)}, NULL)`;
}

/** `property_epoch_ms` of a property read from its JSON (it needs the value's JSON type); Nullable(Float64). */
export function propertyEpochMsSql(t: PropertyTarget & { raw: string }): string {
  return `multiIf(match(${t.raw}, '^-?[0-9]'), toFloat64OrNull(${t.raw}) * 1000,
    NOT startsWith(${t.raw}, '"'), NULL,
    match(${t.text}, ${chLiteral(SECONDS)}), toFloat64OrNull(trimBoth(${t.text}, ${chLiteral('\t\n\v\f\r ')})) * 1000,
    lengthUTF8(${t.text}) > 64, NULL,
    ${isoEpochMsSql(t.text)})`;
}

/** The date condition against the filter's date (epoch ms from `filterDate`). */
export function dateConditionSql(operator: string, t: PropertyTarget, expected: number, p: ChParams): string {
  if (t.raw === undefined) throw new Error('date conditions read the JSON, not a hot column');
  return `ifNull(${propertyEpochMsSql({ ...t, raw: t.raw })} ${COMPARISONS[operator]} ${bindDouble(p, expected)}, 0)`;
}
