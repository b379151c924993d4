/**
 * Characters of a client-chosen text (event name, email) that its btree index holds: 200 characters are
 * at most 800 bytes, well inside an entry's 2,704. Must match the index expressions of migration
 * BoundedIndexKeys, which keeps its own literal because a migration never changes after release.
 */
const INDEXED_PREFIX_LENGTH = 200;

/** `column = param`, written so the prefix index finds the rows and the whole value keeps the match exact. */
export function prefixIndexedEquals(column: string, param: string): string {
  return `left(${column}, ${INDEXED_PREFIX_LENGTH}) = left(${param}, ${INDEXED_PREFIX_LENGTH}) AND ${column} = ${param}`;
}

/**
 * `column = value` for a value known when the SQL is built: a value shorter than the prefix equals the
 * column exactly when the prefixes are equal, so the index alone decides and can answer without the
 * table (an index-only scan where the index includes what the query reads).
 */
export function prefixIndexedEqualsValue(column: string, value: string, bind: (value: string) => string): string {
  const param = bind(value);
  if (Array.from(value).length < INDEXED_PREFIX_LENGTH) return `left(${column}, ${INDEXED_PREFIX_LENGTH}) = ${param}`;
  return prefixIndexedEquals(column, param);
}
