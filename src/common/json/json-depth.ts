/** serde_json's recursion limit, which PostHog's capture inherits; every JSON body of the service is held to it. */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether `value`, parsed from `text`, nests deeper than `limit`. A text with no more than `limit` opening brackets
 * (in strings or not) cannot: most payloads are answered by counting them with indexOf, without walking a value whose
 * thousands of keys someone else chose.
 */
export function parsedJsonTooDeep(text: string, value: unknown, limit: number): boolean {
  let openings = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1 && openings <= limit; at = text.indexOf(bracket, at + 1)) openings++;
  }
  return openings > limit && jsonDepthExceeds(value, limit);
}

/** Deepest nesting of a parsed JSON value, walked iteratively so no input can overflow the stack. */
function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
