import { stringify } from 'csv-stringify/sync';
import { queryInteger } from '../../common/http/pagination';
import { queryText } from '../../common/http/query-values';

/** Rows a CSV export holds when `limit` is not given, and at most (PostHog's CSV export caps). */
export const CSV_DEFAULT_LIMIT = 1000;
export const CSV_MAX_LIMIT = 10_000;

/** `format=csv`, or the `.csv` path suffix the route already resolved. */
export function wantsCsv(query: Record<string, unknown>, suffix = false): boolean {
  return suffix || queryText(query.format) === 'csv';
}

export function csvPage(query: Record<string, unknown>): { limit: number; offset: number } {
  const limit = queryInteger(query.limit);
  return { limit: limit ? Math.min(limit, CSV_MAX_LIMIT) : CSV_DEFAULT_LIMIT, offset: queryInteger(query.offset) ?? 0 };
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

/** Nested objects and lists become dotted columns (`properties.$browser`, `distinct_ids.0`), as DRF's CSV renderer. */
export function flattenRecord(value: unknown, prefix = '', into: Record<string, string> = {}): Record<string, string> {
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) flattenRecord(inner, prefix ? `${prefix}.${key}` : key, into);
  } else if (prefix) {
    into[prefix] = cell(value);
  }
  return into;
}

/**
 * Header = sorted union of the flattened keys, missing cells empty, CRLF rows. Cells that a
 * spreadsheet would run as a formula (`= + - @`, tab, CR first) get a leading `'`.
 */
export function toCsv(records: unknown[]): string {
  const rows = records.map((record) => flattenRecord(record));
  const header = [...new Set(rows.flatMap((row) => Object.keys(row)))].sort();
  if (header.length === 0) return '';
  // The header is written as a plain first row: column names are property keys, escaped like any cell.
  return stringify([header, ...rows.map((row) => header.map((column) => row[column] ?? ''))], {
    record_delimiter: '\r\n',
    escape_formulas: true,
    // A lone CR or LF inside a cell must be quoted too, or readers split the row there.
    quoted_match: /[\r\n]/,
  });
}
