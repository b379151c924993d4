const NEEDS_CLEANING = /[\u0000\ud800-\udfff]/;

/**
 * JSON text whose parsed value may hold NUL or a lone surrogate. They arrive escaped (raw NUL is invalid
 * JSON, raw lone surrogates invalid UTF-8); lz64 text is not UTF-8-checked, so raw surrogates count too.
 * Valid pairs also match: cleaning them is a no-op, only slower.
 */
export const JSON_TEXT_NEEDS_CLEANING = /\\u(0000|[dD][89a-fA-F])|[\ud800-\udfff]/;

/** PostgreSQL text and jsonb refuse NUL and lone surrogates: both become U+FFFD. */
export function cleanString(value: string): string {
  if (!NEEDS_CLEANING.test(value)) return value;
  return value.replace(/\u0000/g, '\ufffd').toWellFormed();
}

/**
 * A deep copy of parsed JSON with every key and string cleaned. Iterative, so depth cannot overflow
 * the stack; `__proto__` stays an ordinary key (defineProperty never sets prototypes).
 */
export function cleanJson(value: unknown): unknown {
  if (typeof value === 'string') return cleanString(value);
  if (value === null || typeof value !== 'object') return value;
  const root: { value: unknown } = { value: undefined };
  const stack: Array<{ source: unknown; assign: (copy: unknown) => void }> = [{ source: value, assign: (c) => (root.value = c) }];
  while (stack.length > 0) {
    const { source, assign } = stack.pop()!;
    if (typeof source === 'string') {
      assign(cleanString(source));
    } else if (source === null || typeof source !== 'object') {
      assign(source);
    } else if (Array.isArray(source)) {
      const copy: unknown[] = new Array(source.length);
      assign(copy);
      for (let index = source.length - 1; index >= 0; index--) stack.push({ source: source[index], assign: (c) => (copy[index] = c) });
    } else {
      const copy: Record<string, unknown> = {};
      assign(copy);
      // Pushed in reverse so they are popped, and so assigned, in their original order.
      const entries = Object.entries(source);
      for (let i = entries.length - 1; i >= 0; i--) {
        const cleanKey = cleanString(entries[i][0]);
        stack.push({ source: entries[i][1], assign: (c) => setOwn(copy, cleanKey, c) });
      }
    }
  }
  return root.value;
}

/** Assignment that treats `__proto__` as data, never as the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
