import { asNumber, asText, isBooleanFilter, regexFinds, truthy } from '../../../kernel/property-match';
import { filterDate } from '../../../kernel/dates';
import { likePattern } from '../../../database/like-pattern';
import type { ConditionOptions } from '../../events/property-filter-sql';
import type { ChParams } from '../engine/ch-sql';
import { bindText, bindTexts } from './sql-text.ch';
import { dateConditionSql } from './property-date.ch';
import { numberConditionSql } from './property-number.ch';
import type { PropertyTarget } from './property-target.ch';
import { versionConditionSql } from './property-version.ch';

/**
 * The positive operators' conditions on a property that is present, as the PostgreSQL compiler
 * (events/property-filter-sql.ts) writes them; presence, nulls and negation are the caller's.
 */

export const FALSE = '0';
export const TRUE = '1';

/**
 * PostgreSQL's lower(): glibc's towlower in a C.UTF-8 database. ClickHouse's lowerUTF8 (ICU) agrees with it on
 * every code point but İ (U+0130, ICU `i̇`) and the letters Unicode added after glibc's tables (Unicode 16),
 * and in context on one more, the capital sigma ending a word (ICU `ς`, glibc `σ`). ClickHouse's ilike folds
 * case its own way and disagrees with PostgreSQL's ILIKE on hundreds (Georgian, ǅ, ſ …), so ILIKE here is LIKE
 * over lowerUTF8 of both sides, as PostgreSQL runs it.
 */
export function lowerSql(text: string): string {
  return `lowerUTF8(${text})`;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function exactSql(t: PropertyTarget, value: unknown, p: ChParams, caseSensitive: boolean): string {
  const candidates = listOf(value);
  if (candidates.length === 0) return FALSE;
  // Booleans (and "true"/"false") compare by truthiness whatever the case rule, as the flag matcher does.
  if (isBooleanFilter(value)) {
    const wanted = new Set(candidates.map(truthy));
    if (wanted.size === 2) return TRUE;
    return `(${lowerSql(t.text)} ${wanted.has(true) ? '=' : '!='} 'true')`;
  }
  if (caseSensitive) return `has(${bindTexts(p, candidates.map(asText))}, ${t.text})`;
  return `has(${bindTexts(p, candidates.map((c) => asText(c).toLowerCase()))}, ${lowerSql(t.text)})`;
}

/** ILIKE as PostgreSQL runs it in a multi-byte database: LIKE over lower() of both sides (`\` escapes in both). */
function textSql(operator: string, t: PropertyTarget, value: unknown, p: ChParams): string {
  const needles = listOf(value).map((v) => asText(v));
  const like = (pattern: string) => `(${lowerSql(t.text)} LIKE ${lowerSql(bindText(p, pattern))})`;
  if (operator === 'icontains') return like(likePattern(needles[0] ?? '', '%', '%'));
  const [prefix, suffix] = operator === 'starts_with' ? ['', '%'] : operator === 'ends_with' ? ['%', ''] : ['%', '%'];
  const patterns = needles.map((n) => likePattern(n, prefix, suffix));
  return patterns.length === 0 ? FALSE : `(${patterns.map(like).join(' OR ')})`;
}

const VERSION_OPERATORS = new Set([
  'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte', 'semver_tilde', 'semver_caret', 'semver_wildcard',
]);
const DATE_OPERATORS = new Set(['is_date_before', 'is_date_after', 'is_date_exact']);
const NUMBER_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte']);

/** Whether an operator reads the value's JSON type, which a hot column does not keep. */
export function needsJson(operator: string): boolean {
  return DATE_OPERATORS.has(operator);
}

/** The condition of a positive operator (one of property-filters.ts's POSITIVE_OPERATORS); never NULL. */
export function positiveSql(operator: string, t: PropertyTarget, value: unknown, p: ChParams, options: ConditionOptions): string {
  if (operator === 'exact') return exactSql(t, value, p, options.caseSensitiveExact);
  if (operator === 'regex') {
    // Invalid patterns match nothing (Rust matcher); validity is RE2's, and ClickHouse's match is RE2.
    return regexFinds(value, '') === null ? FALSE : `match(${t.text}, ${bindText(p, asText(value))})`;
  }
  if (NUMBER_OPERATORS.has(operator)) {
    const expected = asNumber(value);
    return (expected === null ? null : numberConditionSql(operator, t.text, expected, p)) ?? FALSE;
  }
  if (DATE_OPERATORS.has(operator)) {
    const expected = filterDate(value, options.now);
    return expected === null ? FALSE : dateConditionSql(operator, t, expected, p);
  }
  if (VERSION_OPERATORS.has(operator)) return versionConditionSql(operator, t.text, value, p) ?? FALSE;
  // What is left is a text operator: icontains, icontains_multi, starts_with, ends_with.
  return textSql(operator, t, value, p);
}
