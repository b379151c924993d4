/** A table name as ClickHouse takes it unquoted (optionally `database.table`); builders pass constants. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

export function checkedTableName(table: string): string {
  if (!TABLE_NAME.test(table)) throw new Error(`not a table name: ${JSON.stringify(table)}`);
  return table;
}

/** A column name as ClickHouse takes it unquoted; builders pass constants. */
export function checkedColumnName(column: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(column)) throw new Error(`not a column name: ${JSON.stringify(column)}`);
  return column;
}

/**
 * JSON text for ClickHouse's JSON input formats. 64-bit integers given as bigint go as JSON strings, which
 * ClickHouse reads into integer columns exactly (a JSON number past 2^53 would already have lost digits);
 * dates go as their ISO text.
 */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
}

/** Rows as a JSONEachRow payload: one JSON object per line. */
export function jsonEachRow(rows: ReadonlyArray<Readonly<Record<string, unknown>>>): string {
  return rows.map(stringifyJson).join('\n') + '\n';
}
