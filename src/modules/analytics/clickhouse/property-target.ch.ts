import type { HotColumn } from '../engine/schema/hot-properties';

/**
 * One property of one row, as the filter conditions read it. Every field is a trusted ClickHouse expression;
 * the key is already bound. Properties are JSON object text (PostgreSQL's jsonb output) in a String column.
 */
export interface PropertyTarget {
  /**
   * What PostgreSQL's `coalesce(properties ->> key, 'null')` gives, never NULL: a string unescaped, `'null'`
   * when the key is absent or JSON null, any other JSON as ClickHouse writes it. That last part is the same
   * text for booleans and most numbers, not for all: see {@link coldTarget}.
   */
  text: string;
  /** The key is there (with any value, JSON null included): jsonb's `?`. */
  present: string;
  /** The key is absent or JSON null: where every negated operator holds. */
  absentOrNull: string;
  /** The value's raw JSON (`''` when absent), for conditions that depend on its JSON type; unset on a hot column. */
  raw?: string;
}

/**
 * Reads the property from the JSON text. One `JSONExtractRaw` (ClickHouse merges repeated identical calls), so
 * one parse of the properties per row, whatever the condition asks. Its text of a number or of an object is
 * ClickHouse's rewriting of it, as PostHog's own properties read in ClickHouse: numbers as their shortest
 * double form (`1.50` reads `1.5`, `0.0000001` reads `1e-7`), objects and arrays without spaces. A document
 * ClickHouse cannot parse (an integer beyond UInt64) has no properties at all.
 */
export function coldTarget(column: string, key: string): PropertyTarget {
  const raw = `JSONExtractRaw(${column}, ${key})`;
  const absentOrNull = `(${raw} IN ('', 'null'))`;
  return {
    raw,
    present: `(${raw} != '')`,
    absentOrNull,
    text: `multiIf(${absentOrNull}, 'null', startsWith(${raw}, '"'), JSONExtractString(${raw}), ${raw})`,
  };
}

/**
 * Reads the property from its own column (`text`: NULL when absent or JSON null, the text of {@link coldTarget}
 * otherwise) and tells a JSON null from an absent key by `jsonNull` (see hot-properties.ts): no condition parses
 * the properties.
 */
export function hotTarget(hot: HotColumn): PropertyTarget {
  return {
    text: `ifNull(${hot.text}, 'null')`,
    present: `(isNotNull(${hot.text}) OR ${hot.jsonNull})`,
    absentOrNull: `isNull(${hot.text})`,
  };
}
