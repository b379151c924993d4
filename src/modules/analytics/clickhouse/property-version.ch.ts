import { parseVersion, versionRange, Version } from '../../../kernel/semver';
import type { ChParams } from '../engine/ch-sql';
import { chLet, chLiteral } from './sql-text.ch';

/**
 * `semver_*` as the PostgreSQL function `property_semver` reads a property (migration ManagementReads): a
 * string or number whose text is `[v]major[.minor[.patch]][-pre][+build]`, parts of at most 18 digits,
 * compared as [major, minor, patch, 1 for a release / 0 for a pre-release]; anything else matches nothing.
 */

// PostgreSQL's `\s` in this database's locale (C.UTF-8): ASCII whitespace and the Unicode spaces glibc's
// iswspace takes. Nothing is cast after this regex, so a version padded with U+3000 is a version there too.
const WS = String.raw`[\t\n\v\f\r \x{1680}\x{2000}-\x{2006}\x{2008}-\x{200A}\x{2028}\x{2029}\x{205F}\x{3000}]`;
// PostgreSQL matches case-insensitively (flag `i`); only `v` has another case here. RE2's `(?i)` would also
// let the Kelvin sign match `k` in the pre-release, which PostgreSQL's does not.
const VERSION = String.raw`^${WS}*[vV]?([0-9]{1,18})(?:\.([0-9]{1,18}))?(?:\.([0-9]{1,18}))?(-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]*)?${WS}*$`;
const COMPARISONS: Record<string, string> = { semver_eq: '=', semver_neq: '!=', semver_gt: '>', semver_gte: '>=', semver_lt: '<', semver_lte: '<=' };
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A filter's version bound as UInt64s. A property's parts have at most 18 digits, so a filter part of 2^64 or
 * more (or beyond a double, Infinity) compares with every one of them as UInt64's maximum does.
 */
function versionKeySql(version: Version, p: ChParams): string {
  const parts = [...version.core, version.pre.length === 0 ? 1 : 0].map((n) => (n < 2 ** 64 ? BigInt(String(n)) : UINT64_MAX));
  return `tuple(${parts.map((n) => p.add(n, 'UInt64')).join(', ')})`;
}

export function versionConditionSql(operator: string, text: string, value: unknown, p: ChParams): string | null {
  const g = '__version';
  const actual = `tuple(toUInt64OrZero(${g}[1]), toUInt64OrZero(${g}[2]), toUInt64OrZero(${g}[3]), if(${g}[4] = '', 1, 0))`;
  let compared: string;
  if (operator in COMPARISONS) {
    const expected = parseVersion(value);
    if (!expected) return null;
    compared = `${actual} ${COMPARISONS[operator]} ${versionKeySql(expected, p)}`;
  } else {
    const range = versionRange(operator as 'semver_tilde', value);
    if (!range) return null;
    compared = `${actual} >= ${versionKeySql(range[0], p)} AND ${actual} < ${versionKeySql(range[1], p)}`;
  }
  return `(match(${text}, ${chLiteral(VERSION)}) AND ${chLet(g, `extractGroups(${text}, ${chLiteral(VERSION)})`, compared)})`;
}
