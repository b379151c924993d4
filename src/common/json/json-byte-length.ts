/** Characters JSON.stringify writes as more than themselves (quotes, backslashes, controls, lone surrogates). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The UTF-8 length of `JSON.stringify(value)`, without building that text: a 1 MB event is measured in a fraction of
 * the time its serialisation takes, on the event loop that capture shares. Counting stops once it passes `stopAbove`
 * (the result is then some number above it). Values JSON leaves out (undefined, functions) count as it counts them.
 */
export function jsonByteLength(value: unknown, stopAbove = Infinity): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAbove) {
    const item = stack.pop();
    if (typeof item === 'string') total += ESCAPED.test(item) ? Buffer.byteLength(JSON.stringify(item)) : Buffer.byteLength(item) + 2;
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
