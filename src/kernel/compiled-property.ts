import type { PropertyFilter } from './flag-filters';
import { RELATIVE_DATE } from './property-operators';
import { filterDate, propertyDate } from './dates';
import {
  asciiLowercase,
  asNumber,
  asText,
  comparable,
  compiled,
  isBooleanFilter,
  MAX_REGEX_WORK,
  NEGATED,
  NUMERIC_OPERATORS,
  SEMVER_TEST,
  TEXT_OPERATORS,
  truthy,
} from './property-match';
import { compareVersions, parseVersion, versionRange } from './semver';

/** One property condition, ready to run against known properties, with the filter's side done once. */
export type PropertyTest = (properties: Record<string, unknown>, now: Date) => boolean;

/** A test of a value known to be present; `now` only for relative dates. */
type PresentTest = (actual: unknown, now: Date) => boolean;

const hasOwn = (properties: Record<string, unknown>, key: unknown) => Object.hasOwn(properties, key as PropertyKey);

/** The operators of the "current server" column; stored conditions are not re-validated, and any other matches nothing. */
const KNOWN = new Set(['exact', 'regex', ...NUMERIC_OPERATORS, ...TEXT_OPERATORS, ...Object.keys(NEGATED)]);

/**
 * One person or group property condition (the semantics of PostHog's flags service), with
 * the filter's side (candidates folded, numbers, versions and absolute dates parsed, the pattern
 * compiled) done here, once: snapshots compile each flag's conditions when they load. A missing key
 * fails positive operators and satisfies negated ones; a value too long to compare fails both.
 */
export function compileProperty(filter: PropertyFilter): PropertyTest {
  const operator = filter.operator ?? 'exact';
  if (typeof operator !== 'string') return () => false;
  const key = filter.key;
  if (operator === 'is_set') return (properties) => hasOwn(properties, key);
  if (operator === 'is_not_set') return (properties) => !hasOwn(properties, key);
  const known = KNOWN.has(operator) || operator.startsWith('is_date_') || operator.startsWith('semver_');
  if (!known) return () => false;
  if (Object.hasOwn(NEGATED, operator)) {
    const positive = operator === 'not_regex' ? regexTest(filter.value, false) : presentTest(NEGATED[operator], filter.value);
    const test = bounded(operator === 'not_regex' ? positive : (actual, now) => !positive(actual, now));
    return (properties, now) => {
      if (!hasOwn(properties, key)) return true;
      const actual = properties[key as string];
      return actual === null || test(actual, now);
    };
  }
  const test = bounded(presentTest(operator, filter.value));
  return (properties, now) => hasOwn(properties, key) && test(properties[key as string], now);
}

/** The test, for values short enough to compare (MAX_COMPARED_CHARS); longer ones match nothing. */
function bounded(test: PresentTest): PresentTest {
  return (actual, now) => comparable(actual) && test(actual, now);
}

/** One condition, compiled for this call: for callers without a place to keep the compiled test. */
export function matchesProperty(filter: PropertyFilter, properties: Record<string, unknown>, now: Date): boolean {
  return compileProperty(filter)(properties, now);
}

function presentTest(operator: string, filterValue: unknown): PresentTest {
  if (operator === 'exact') return exactTest(filterValue);
  if (operator === 'regex') return regexTest(filterValue, true);
  if (NUMERIC_OPERATORS.has(operator)) return numberTest(operator, filterValue);
  if (operator.startsWith('is_date_')) return dateTest(operator, filterValue);
  if (operator.startsWith('semver_')) return semverTest(operator, filterValue);
  if (TEXT_OPERATORS.has(operator)) return textTest(operator, filterValue);
  return () => false;
}

function exactTest(filterValue: unknown): PresentTest {
  const candidates: unknown[] = Array.isArray(filterValue) ? filterValue : [filterValue];
  if (isBooleanFilter(filterValue)) {
    const [anyTrue, anyFalse] = [candidates.some((c) => truthy(c)), candidates.some((c) => !truthy(c))];
    return (actual) => (truthy(actual) ? anyTrue : anyFalse);
  }
  const texts = candidates.map((c) => asText(c).toLowerCase());
  if (texts.length === 1) {
    const [text] = texts;
    return (actual) => asText(actual).toLowerCase() === text;
  }
  return (actual) => texts.includes(asText(actual).toLowerCase());
}

/**
 * `regex` wants a find, `not_regex` a valid pattern that finds nothing; an invalid pattern fails both, and so does a
 * text longer than the pattern may read (MAX_REGEX_WORK).
 */
function regexTest(pattern: unknown, wanted: boolean): PresentTest {
  const regex = compiled(asText(pattern));
  if (regex === null) return () => false;
  const longest = Math.floor(MAX_REGEX_WORK / Math.max(1, regex.programSize()));
  return (actual) => {
    const text = asText(actual);
    return text.length <= longest && regex.matcher(text).find() === wanted;
  };
}

function numberTest(operator: string, filterValue: unknown): PresentTest {
  const expected = asNumber(filterValue);
  if (expected === null) return () => false;
  const compare =
    operator === 'gt' ? (v: number) => v > expected : operator === 'gte' ? (v: number) => v >= expected : operator === 'lt' ? (v: number) => v < expected : (v: number) => v <= expected;
  return (actual) => {
    const value = asNumber(actual);
    return value !== null && compare(value);
  };
}

/** Relative dates move with `now`; absolute ones are parsed once. */
function dateTest(operator: string, filterValue: unknown): PresentTest {
  if (typeof filterValue !== 'string') return () => false;
  const relative = RELATIVE_DATE.test(filterValue.trim());
  const fixed = relative ? null : filterDate(filterValue, new Date(0));
  if (!relative && fixed === null) return () => false;
  return (actual, now) => {
    const expected = relative ? filterDate(filterValue, now) : fixed;
    const value = propertyDate(actual);
    if (expected === null || value === null) return false;
    if (operator === 'is_date_before') return value < expected;
    if (operator === 'is_date_after') return value > expected;
    return value === expected;
  };
}

function semverTest(operator: string, filterValue: unknown): PresentTest {
  if (Object.hasOwn(SEMVER_TEST, operator)) {
    const [expected, test] = [parseVersion(filterValue), SEMVER_TEST[operator]];
    if (expected === null) return () => false;
    return (actual) => {
      const value = parseVersion(actual);
      return value !== null && test(compareVersions(value, expected));
    };
  }
  const range = versionRange(operator as 'semver_tilde', filterValue);
  if (range === null) return () => false;
  return (actual) => {
    const value = parseVersion(actual);
    return value !== null && compareVersions(value, range[0]) >= 0 && compareVersions(value, range[1]) < 0;
  };
}

function textTest(operator: string, filterValue: unknown): PresentTest {
  const needles = (Array.isArray(filterValue) ? filterValue : [filterValue]).map((v) => asciiLowercase(asText(v)));
  const read = (actual: unknown) => asciiLowercase(asText(actual));
  if (operator === 'icontains') {
    const needle = needles[0];
    return (actual) => read(actual).includes(needle);
  }
  if (operator === 'icontains_multi') return (actual) => anyNeedle(needles, read(actual), (text, n) => text.includes(n));
  if (operator === 'starts_with') return (actual) => anyNeedle(needles, read(actual), (text, n) => text.startsWith(n));
  return (actual) => anyNeedle(needles, read(actual), (text, n) => text.endsWith(n));
}

function anyNeedle(needles: string[], text: string, found: (text: string, needle: string) => boolean): boolean {
  for (const needle of needles) if (found(text, needle)) return true;
  return false;
}
