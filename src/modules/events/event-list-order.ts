import { ApiError } from '../../common/errors/api-error';

/** Newest first (PostHog's default `["-timestamp"]`) or oldest first (`["timestamp"]`). */
export type EventOrder = 'desc' | 'asc';

const ORDERABLE = new Map<string, EventOrder>([
  ['-timestamp', 'desc'],
  ['timestamp', 'asc'],
]);

const NOT_A_LIST = 'orderBy must be a JSON list such as ["-timestamp"] or ["timestamp"].';

/**
 * `orderBy`: a JSON list of fields, PostHog's `["-timestamp"]` by default. Events only order by
 * timestamp, so the first entry decides the direction and any other field is refused rather than
 * silently ignored (PostHog's ClickHouse query treats every list not starting with `-timestamp` as
 * ascending). An empty list asks for no particular order: the default.
 */
export function parseOrderBy(text: string | undefined): EventOrder {
  if (text === undefined || text.trim() === '') return 'desc';
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch {
    throw ApiError.validation(NOT_A_LIST, 'orderBy');
  }
  if (!Array.isArray(fields)) throw ApiError.validation(NOT_A_LIST, 'orderBy');
  for (const field of fields) {
    if (typeof field !== 'string' || !ORDERABLE.has(field)) {
      const shown = (JSON.stringify(field) ?? String(field)).slice(0, 100);
      throw ApiError.validation(`Events cannot be ordered by ${shown}: only "timestamp" and "-timestamp" are supported.`, 'orderBy');
    }
  }
  return fields.length === 0 ? 'desc' : ORDERABLE.get(fields[0] as string)!;
}

/** The last event of a page, where the next page starts. */
export interface PageEnd {
  timestamp: string;
  id: string;
}

/**
 * The `next` link: every parameter kept, `offset` dropped (the cursor replaces it), and the keyset
 * cursor moved past the last event. Newest first: `before` + `before_id`; oldest first: `after` +
 * `after_id` (PostHog moves only `before`/`after`, which can skip events sharing the boundary timestamp).
 */
export function nextPageUrl(url: URL, order: EventOrder, last: PageEnd): string {
  const link = new URL(url.toString());
  link.searchParams.delete('offset');
  const [bound, tiebreak] = order === 'desc' ? ['before', 'before_id'] : ['after', 'after_id'];
  link.searchParams.set(bound, last.timestamp);
  link.searchParams.set(tiebreak, last.id);
  return link.toString();
}
