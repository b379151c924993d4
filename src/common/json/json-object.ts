import { setOwn } from './clean-text';

/** A parsed JSON object (not an array, not null): the shape of events, properties and bodies. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A name or id sent as JSON: text as it is, a finite number as its text; anything else is null. */
export function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * `record[key]` when the record has that key itself. Keys from outside (group type names, variant keys,
 * orderings) may be `constructor` or `toString`, which a plain lookup finds on Object.prototype.
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * `{ ...a, ...b }` for JSON objects, built by assignment. A spread of objects of many shapes (every
 * person's properties have their own) takes V8's generic path and yields a dictionary-mode object,
 * several times slower to build and to read; `__proto__` stays an ordinary own key, as in a spread.
 */
export function mergedObject(...sources: Array<Readonly<JsonObject> | null | undefined>): JsonObject {
  const merged: JsonObject = {};
  for (const source of sources) {
    if (!source) continue;
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      // Plain assignment keeps the object fast; only `__proto__` needs setOwn's definition as data.
      if (key === '__proto__') setOwn(merged, key, source[key]);
      else merged[key] = source[key];
    }
  }
  return merged;
}
