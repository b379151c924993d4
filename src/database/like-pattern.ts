/** A LIKE / ILIKE pattern matching `text` literally between `prefix` and `suffix` (`\`, `%` and `_` escaped). */
export function likePattern(text: string, prefix = '%', suffix = '%'): string {
  return `${prefix}${text.replace(/[\\%_]/g, (c) => `\\${c}`)}${suffix}`;
}
