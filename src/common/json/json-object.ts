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
