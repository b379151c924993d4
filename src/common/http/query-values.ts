/** A query parameter as text: a repeated one counts by its last value (Django's QueryDict); absent or not text → undefined. */
export function queryText(raw: unknown): string | undefined {
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' ? value : undefined;
}
