import { cleanString } from '../../../common/json/clean-text';
import type { ChParams } from '../engine/ch-sql';

/**
 * A ClickHouse string literal of trusted text (a regex or a constant this code wrote), never of user input:
 * user text is bound through {@link bindText}.
 */
export function chLiteral(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * User text bound as a String. NUL and lone surrogates become U+FFFD first, as the PostgreSQL compiler's
 * parameters do (jsonb never holds them), so a value with NUL matches the same rows in both.
 */
export function bindText(p: ChParams, text: string): string {
  return p.add(cleanString(text), 'String');
}

export function bindTexts(p: ChParams, texts: readonly string[]): string {
  return p.add(texts.map(cleanString), 'Array(String)');
}

/**
 * A double bound as its shortest round-trip text: exact on any engine, and chdb refuses a JavaScript number
 * that is an integer beyond 2^53 (it cannot tell a double from an imprecise integer).
 */
export function bindDouble(p: ChParams, value: number): string {
  return p.add(String(value), 'Float64');
}

/**
 * `body` with `name` bound to `value`, computed once: ClickHouse has no LET inside an expression, and a
 * fragment pasted into itself several times (a date's parts, its microseconds) grows the query text
 * exponentially. `name` must be unique in its scope and name no column (a `__` prefix).
 */
export function chLet(name: string, value: string, body: string): string {
  return `arrayElement(arrayMap(${name} -> ${body}, [${value}]), 1)`;
}
