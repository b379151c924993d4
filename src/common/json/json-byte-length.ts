/** Characters JSON.stringify writes as more than themselves (quotes, backslashes, controls, lone surrogates). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** At most how many bytes JSON writes for one byte of a string (a control character becomes `\u00XX`). */
export const MAX_ESCAPE_GROWTH = 6;

/**
 * The UTF-8 length of `JSON.stringify(value)`, without building that text or its garbage. Counting stops once it
 * passes `stopAbove` (the result is then some number above it). Values JSON leaves out (undefined, functions) count as
 * it counts them. With `escapes: false` strings are not scanned for what JSON escapes (the scan is most of the cost,
 * about 1.3 ms per MB): the result is then a lower bound, at most MAX_ESCAPE_GROWTH times too small.
 */
export function jsonByteLength(value: unknown, stopAbove = Infinity, escapes = true): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAbove) {
    const item = stack.pop();
    if (typeof item === 'string') total += escapes && ESCAPED.test(item) ? Buffer.byteLength(JSON.stringify(item)) : Buffer.byteLength(item) + 2;
    else if (typeof item === 'number') total += Number.isFinite(item) ? String(item).length : 4; // non-finite → null
    else if (typeof item === 'boolean') total += item ? 4 : 5;
    else if (item === null) total += 4;
    else if (Array.isArray(item)) {
      total += 1 + Math.max(item.length, 1); // brackets and commas
      for (const child of item) stack.push(child === undefined || typeof child === 'function' ? null : child);
    } else if (typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>).filter(([, child]) => child !== undefined && typeof child !== 'function');
      total += 1 + Math.max(entries.length, 1); // braces, colons counted below, commas
      for (const [key, child] of entries) {
        total += 1; // the colon
        stack.push(key, child);
      }
    }
  }
  return total;
}

/** Whether `JSON.stringify(value)` is longer than `limit` bytes, scanning strings for escapes only when it matters. */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  const lowerBound = jsonByteLength(value, limit, false);
  if (lowerBound > limit) return true;
  if (lowerBound * MAX_ESCAPE_GROWTH <= limit) return false;
  return jsonByteLength(value, limit) > limit;
}
