/**
 * How Python's `str()` prints a JSON value, so that messages quoting a user's value read exactly
 * like PostHog's (`['a', 1]`, `True`, `None`, `{'k': 'v'}`).
 */
export function pythonRepr(value: unknown, nested = false): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return nested ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : value;
  if (Array.isArray(value)) return `[${value.map((item) => pythonRepr(item, true)).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonRepr(k, true)}: ${pythonRepr(v, true)}`);
  return `{${entries.join(', ')}}`;
}
