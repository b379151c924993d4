import { RE2JS } from 're2js';
import { jsonLongerThan } from '../common/json/json-byte-length';

// How property conditions read and compare values; the matcher itself is compiled-property.ts.

/**
 * The longest value a condition compares, in characters (objects and lists by their JSON text). posthog-js cuts
 * property strings to this length before sending them, so every value an SDK sends is compared as PostHog compares
 * it; a longer one, which only a hand-made request carries, matches no condition whatever the operator, as an invalid
 * pattern matches neither `regex` nor `not_regex`. Evaluation runs on the event loop: what one request sends must
 * not decide how long it holds it.
 */
export const MAX_COMPARED_CHARS = 65_535;

/**
 * A regex runs over at most this much work: the text's length times the size of the pattern's compiled program.
 * RE2 matching is linear in both, but re2js takes up to about 25 ns per unit, so this bounds one match to about 3 ms:
 * an everyday pattern of 10–40 instructions still reads 3,300–13,000 characters. A longer text does not match (nor
 * `not_regex`).
 */
export const MAX_REGEX_WORK = 131_072;

/** Whether a value is short enough to be compared at all (MAX_COMPARED_CHARS). */
export function comparable(value: unknown): boolean {
  if (typeof value === 'string') return value.length <= MAX_COMPARED_CHARS;
  return typeof value !== 'object' || value === null || !jsonLongerThan(value, MAX_COMPARED_CHARS);
}

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

/**
 * The substring operators fold ASCII letters only, as PostHog's flags service does (Rust
 * `to_ascii_lowercase`) and posthog-node's local evaluation copies: "ZOË" does not contain "zoë".
 * `exact` folds all of Unicode, as the service does.
 */
export function asciiLowercase(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

export const NEGATED: Record<string, string> = {
  is_not: 'exact',
  not_icontains: 'icontains',
  not_regex: 'regex',
  not_starts_with: 'starts_with',
  not_ends_with: 'ends_with',
  not_icontains_multi: 'icontains_multi',
};
