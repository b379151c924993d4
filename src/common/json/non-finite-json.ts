/** The tokens Python's `json` module writes for float NaN and infinities, longest first. */
const NON_FINITE = ['-Infinity', 'Infinity', 'NaN'];

/**
 * posthog-python serialises with Python's `json`, which writes `NaN`, `Infinity` and `-Infinity` for
 * such floats; PostHog's capture and flags services read each as null.
 * This rewrites those tokens outside strings to `null` and returns the new text, or null when
 * the text holds none, so that the caller reports its original parse error. Only called once
 * `JSON.parse` has failed, so valid JSON never pays for the scan.
 */
export function nonFiniteToNull(text: string): string | null {
  const pieces: string[] = [];
  let copiedUpTo = 0;
  let i = 0;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      i = endOfString(text, i);
      continue;
    }
    const token = char === 0x2d /* - */ || char === 0x49 /* I */ || char === 0x4e /* N */ ? NON_FINITE.find((t) => text.startsWith(t, i)) : undefined;
    if (token === undefined) {
      i++;
      continue;
    }
    pieces.push(text.slice(copiedUpTo, i), 'null');
    i += token.length;
    copiedUpTo = i;
  }
  if (pieces.length === 0) return null;
  pieces.push(text.slice(copiedUpTo));
  return pieces.join('');
}

/** The index just past the string literal opening at `start` (or the end of the text if it never closes). */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 0x5c /* \ */) i += 2;
    else if (char === 0x22) return i + 1;
    else i++;
  }
  return i;
}
