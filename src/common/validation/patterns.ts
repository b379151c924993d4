/** A UUID in its canonical text form; checked before a uuid column is queried with user input. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ID_TEXT = /^\d{1,9}$/;

/**
 * A serial id from user input (a path segment, a query value, a JSON value): a positive integer
 * that fits a Postgres `integer`, else null, so nothing else ever reaches an id column.
 */
export function parseId(raw: unknown): number | null {
  const id = typeof raw === 'number' ? raw : typeof raw === 'string' && ID_TEXT.test(raw) ? Number(raw) : Number.NaN;
  return Number.isInteger(id) && id > 0 && id <= 2_147_483_647 ? id : null;
}
