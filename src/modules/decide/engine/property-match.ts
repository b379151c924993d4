import { RE2JS } from 're2js';
import type { PropertyFilter } from '../../feature-flags/flag-filters';
import { filterDate, propertyDate } from './dates';
import { compareVersions, parseVersion, versionRange } from './semver';

/** How a property value reads as text in comparisons (no quotes around strings, JSON otherwise). */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  // undefined (a filter without a value) and functions have no JSON text; posthog-node compares String(value).
  return JSON.stringify(value) ?? String(value);
}

export function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

const BOOLEAN_TEXT = /^(true|false)$/i;

/** Filter values that are booleans (or "true"/"false") compare by truthiness (Rust matcher). */
export function isBooleanFilter(value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  return values.length > 0 && values.every((v) => typeof v === 'boolean' || (typeof v === 'string' && BOOLEAN_TEXT.test(v)));
}

export function truthy(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.toLowerCase() === 'true');
}

function exactMatch(filterValue: unknown, actual: unknown): boolean {
  const candidates = Array.isArray(filterValue) ? filterValue : [filterValue];
  if (isBooleanFilter(filterValue)) return candidates.some((c) => truthy(c) === truthy(actual));
  const text = asText(actual).toLowerCase();
  return candidates.some((c) => asText(c).toLowerCase() === text);
}

/** Compiled patterns (null: invalid), so a flag's regex is compiled once, not on every evaluation. */
const compiledPatterns = new Map<string, RE2JS | null>();
const MAX_COMPILED_PATTERNS = 1000;

export function compiled(pattern: string): RE2JS | null {
  let regex = compiledPatterns.get(pattern);
  if (regex !== undefined) return regex;
  try {
    regex = RE2JS.compile(pattern);
  } catch {
    regex = null;
  }
  if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
  compiledPatterns.set(pattern, regex);
  return regex;
}

/** Linear-time regex search (RE2 semantics): a pattern of any shape answers quickly; invalid → null. */
export function regexFinds(pattern: unknown, actual: unknown): boolean | null {
  return compiled(asText(pattern))?.matcher(asText(actual)).find() ?? null;
}

function compareNumbers(operator: string, filterValue: unknown, actual: unknown): boolean {
  const [expected, value] = [asNumber(filterValue), asNumber(actual)];
  if (expected === null || value === null) return false;
  if (operator === 'gt') return value > expected;
  if (operator === 'gte') return value >= expected;
  if (operator === 'lt') return value < expected;
  return value <= expected;
}

export function compareDates(operator: string, filterValue: unknown, actual: unknown, now: Date): boolean {
  const [expected, value] = [filterDate(filterValue, now), propertyDate(actual)];
  if (expected === null || value === null) return false;
  if (operator === 'is_date_before') return value < expected;
  if (operator === 'is_date_after') return value > expected;
  return value === expected;
}

export const NUMERIC_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte']);
export const TEXT_OPERATORS = new Set(['icontains', 'icontains_multi', 'starts_with', 'ends_with']);

export const SEMVER_TEST: Record<string, (c: number) => boolean> = {
  semver_eq: (c) => c === 0,
  semver_neq: (c) => c !== 0,
  semver_gt: (c) => c > 0,
  semver_gte: (c) => c >= 0,
  semver_lt: (c) => c < 0,
  semver_lte: (c) => c <= 0,
};

function compareSemver(operator: string, filterValue: unknown, actual: unknown): boolean {
  const value = parseVersion(actual);
  if (!value) return false;
  if (operator in SEMVER_TEST) {
    const expected = parseVersion(filterValue);
    return expected !== null && SEMVER_TEST[operator](compareVersions(value, expected));
  }
  const range = versionRange(operator as 'semver_tilde', filterValue);
  return range !== null && compareVersions(value, range[0]) >= 0 && compareVersions(value, range[1]) < 0;
}

/**
 * The substring operators fold ASCII letters only, as PostHog's flags service does (Rust
 * `to_ascii_lowercase`) and posthog-node's local evaluation copies: "ZOË" does not contain "zoë".
 * `exact` folds all of Unicode, as the service does.
 */
export function asciiLowercase(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

function textTest(operator: string, filterValue: unknown, actual: unknown): boolean {
  const text = asciiLowercase(asText(actual));
  const needles = (Array.isArray(filterValue) ? filterValue : [filterValue]).map((v) => asciiLowercase(asText(v)));
  if (operator === 'icontains') return text.includes(needles[0]);
  if (operator === 'icontains_multi') return needles.some((n) => text.includes(n));
  if (operator === 'starts_with') return needles.some((n) => text.startsWith(n));
  return needles.some((n) => text.endsWith(n));
}

export const NEGATED: Record<string, string> = {
  is_not: 'exact',
  not_icontains: 'icontains',
  not_regex: 'regex',
  not_starts_with: 'starts_with',
  not_ends_with: 'ends_with',
  not_icontains_multi: 'icontains_multi',
};

/**
 * One person or group property condition against known properties ("current server" semantics,
 * reference/flags.md §3). A missing key fails positive operators and satisfies negated ones.
 */
export function matchesProperty(filter: PropertyFilter, properties: Record<string, unknown>, now: Date): boolean {
  const operator = filter.operator ?? 'exact';
  // Stored conditions are not re-validated on read: an operator of another type matches nothing.
  if (typeof operator !== 'string') return false;
  const present = Object.prototype.hasOwnProperty.call(properties, filter.key);
  if (operator === 'is_set') return present;
  if (operator === 'is_not_set') return !present;
  const actual = present ? properties[filter.key] : undefined;
  if (operator in NEGATED) {
    if (!present || actual === null) return true;
    if (operator === 'not_regex') return regexFinds(filter.value, actual) === false;
    return !matchesPresent(NEGATED[operator], filter.value, actual, now);
  }
  if (!present) return false;
  return matchesPresent(operator, filter.value, actual, now);
}

function matchesPresent(operator: string, filterValue: unknown, actual: unknown, now: Date): boolean {
  if (operator === 'exact') return exactMatch(filterValue, actual);
  if (operator === 'regex') return regexFinds(filterValue, actual) === true;
  if (NUMERIC_OPERATORS.has(operator)) return compareNumbers(operator, filterValue, actual);
  if (operator.startsWith('is_date_')) return compareDates(operator, filterValue, actual, now);
  if (operator.startsWith('semver_')) return compareSemver(operator, filterValue, actual);
  if (TEXT_OPERATORS.has(operator)) return textTest(operator, filterValue, actual);
  return false;
}
