import type { ChParams } from '../engine/ch-sql';
import { bindDouble, chLet, chLiteral } from './sql-text.ch';

/**
 * `gt`/`gte`/`lt`/`lte` as PostgreSQL runs them: the property's text, when it is a JSON number or a numeric
 * string, cast to `numeric` (exact, any precision) and compared with the filter's number written by
 * `String()`. ClickHouse has no arbitrary-precision decimal, so a number is compared as doubles where
 * that cannot change the answer and by an exact decimal key where it could (`0.1000000000000000000001 > 0.1`,
 * `9007199254740993 > 9007199254740992`).
 */

// ASCII whitespace only: PostgreSQL's `\s` also takes Unicode spaces, but its `::numeric` cast then raises,
// so those strings are no numbers here rather than an error.
const WS = String.raw`[\t\n\v\f\r ]`;
// The PostgreSQL compiler's NUMERIC_TEXT (JavaScript's Number() on decimal text, exponent ≤ 999).
const NUMERIC_TEXT = String.raw`^${WS}*[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]{1,3})?${WS}*$`;
// The same text cut into sign, integer digits, fraction digits and exponent.
const NUMERIC_PARTS = String.raw`^${WS}*([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?${WS}*$`;
const COMPARISONS: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * A decimal's order key [sign, sign × point position, digits]: the number is sign × 0.digits × 10^position
 * with no leading or trailing zero digit. Tuples of keys sort as the numbers do; negative numbers take the
 * nines' complement of their digits and a terminator above every digit, which reverses the digits' order.
 */
export function decimalKey(text: string): [number, number, string] | null {
  const parts = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(text);
  const [integer, fraction] = [parts?.[2] ?? '', parts?.[3] ?? ''];
  if (!parts || integer.length + fraction.length === 0) return null;
  const lead = (integer + fraction).replace(/^0+/, '');
  const sig = lead.replace(/0+$/, '');
  if (sig === '') return [0, 0, ''];
  const sign = parts[1] === '-' ? -1 : 1;
  const position = lead.length - fraction.length + Number(parts[4] ?? 0);
  return [sign, sign * position, sign === 1 ? sig : `${sig.replace(/\d/g, (d) => String(9 - Number(d)))}:`];
}

/** {@link decimalKey} in SQL, over a text already known to be numeric. */
function decimalKeySql(text: string): string {
  const [g, lead] = ['__number', '__lead'];
  const sig = `trimRight(${lead}, '0')`;
  const sign = `if(${sig} = '', 0, if(${g}[1] = '-', -1, 1))`;
  const position = `(length(${lead}) - length(${g}[3]) + toInt64OrZero(${g}[4]))`;
  const ordered = `if(${sign} = -1, concat(translate(${sig}, '0123456789', '9876543210'), ':'), ${sig})`;
  const key = chLet(lead, `trimLeft(concat(${g}[2], ${g}[3]), '0')`, `tuple(${sign}, ${sign} * ${position}, ${ordered})`);
  return chLet(g, `extractGroups(${text}, ${chLiteral(NUMERIC_PARTS)})`, key);
}

/** The comparison; null when the filter value is no number (the condition then matches nothing). */
export function numberConditionSql(operator: string, text: string, expected: number, p: ChParams): string | null {
  const key = decimalKey(String(expected));
  const op = COMPARISONS[operator];
  if (!key || !op) return null;
  const numeric = `(length(${text}) < 1000 AND match(${text}, ${chLiteral(NUMERIC_TEXT)}))`;
  const actual = `toFloat64OrZero(trimBoth(${text}, ${chLiteral('\t\n\v\f\r ')}))`;
  const wanted = bindDouble(p, expected);
  // Doubles decide whenever they are further apart than any rounding of either side could move them.
  const decisive = `abs(${actual} - ${wanted}) > 1e-12 * (abs(${actual}) + abs(${wanted})) + 1e-300`;
  const exact = `${decimalKeySql(text)} ${op} tuple(${p.add(key[0], 'Int64')}, ${p.add(key[1], 'Int64')}, ${p.add(key[2], 'String')})`;
  return `(${numeric} AND if(${decisive}, ${actual} ${op} ${wanted}, ${exact}))`;
}
