import { closest, distance } from 'fastest-levenshtein';

/**
 * The known word a mistyped one most likely meant (`evnt` → `event`), or null when none is close: at most one edit
 * for short words, a third of the word's length for longer ones, so an unrelated word gets no suggestion.
 */
export function closestWord(word: string, known: readonly string[]): string | null {
  if (known.length === 0 || word === '') return null;
  const candidate = closest(word.toLowerCase(), known as string[]);
  return distance(word.toLowerCase(), candidate) <= Math.max(1, Math.floor(word.length / 3)) ? candidate : null;
}

/** ` Did you mean X?` for {@link closestWord}, or nothing. */
export function didYouMean(word: string, known: readonly string[]): string {
  const meant = closestWord(word, known);
  return meant === null ? '' : ` Did you mean ${meant}?`;
}
