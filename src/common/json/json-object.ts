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
 * `{ ...a, ...b }` kept to `keys`: the last source that has a key itself gives its value. For a caller that reads only
 * some keys of objects whose size someone else chooses, the work follows `keys`, not the sources. Built by assignment
 * (a spread of objects of many shapes yields a slow dictionary-mode object); `__proto__` stays an ordinary own key.
 */
export function pickedObject(keys: Iterable<string>, ...sources: Array<Readonly<JsonObject> | null | undefined>): JsonObject {
  const picked: JsonObject = {};
  for (const key of keys) {
    for (let i = sources.length - 1; i >= 0; i--) {
      const source = sources[i];
      if (!source || !Object.hasOwn(source, key)) continue;
      if (key === '__proto__') setOwn(picked, key, source[key]);
      else picked[key] = source[key];
      break;
    }
  }
  return picked;
}
