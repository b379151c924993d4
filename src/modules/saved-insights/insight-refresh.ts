import { queryText } from '../../common/http/query-values';

/**
 * How a read of a saved insight may compute its result, as PostHog's `refresh` parameter says
 * (https://github.com/PostHog/posthog/blob/master/posthog/hogql_queries/query_runner.py, `ExecutionMode`):
 * `force_cache` serves the last computed result or none, never computing; `blocking` computes unless the last result
 * is younger than the question's staleness threshold; `force_blocking` always computes.
 */
export type RefreshMode = 'force_cache' | 'blocking' | 'force_blocking';

/**
 * PostHog's spellings: a bare `refresh`, `true`, `1` or `yes` recompute; its background modes compute here while the
 * request waits, since this service runs no queries in the background; anything else reads the cache only.
 */
const MODES: Readonly<Record<string, RefreshMode>> = {
  '': 'force_blocking', true: 'force_blocking', '1': 'force_blocking', yes: 'force_blocking', force_blocking: 'force_blocking', force_async: 'force_blocking',
  blocking: 'blocking', async: 'blocking', lazy_async: 'blocking', async_except_on_cache_miss: 'blocking',
};

export function refreshModeOf(raw: unknown): RefreshMode {
  const text = queryText(raw)?.trim().toLowerCase();
  if (raw === true) return 'force_blocking';
  return text !== undefined && Object.hasOwn(MODES, text) ? MODES[text] : 'force_cache';
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** How old a result may be before `blocking` recomputes it, by the question's interval (PostHog's staleness_threshold_map). */
const STALE_AFTER_MS: Readonly<Record<string, number>> = { minute: 5 * MINUTE, hour: HOUR, day: 6 * HOUR, week: 24 * HOUR, month: 24 * HOUR };
const STALE_WITHOUT_INTERVAL_MS = 6 * HOUR;
/** How soon a client may ask for a recomputation (PostHog's BASE_MINIMUM_INSIGHT_REFRESH_INTERVAL). */
export const CLIENT_REFRESH_AFTER_MS = 15 * MINUTE;

/** The staleness threshold of an insight node: its `interval` when it has one (retention and paths have none). */
export function staleAfterMs(node: Record<string, unknown>): number {
  const interval = typeof node.interval === 'string' ? node.interval.toLowerCase() : null;
  return interval !== null && Object.hasOwn(STALE_AFTER_MS, interval) ? STALE_AFTER_MS[interval] : STALE_WITHOUT_INTERVAL_MS;
}

/** Whether a read in `mode` computes, given when the last result was computed (null: never). */
export function mustCompute(mode: RefreshMode, lastRefresh: Date | null, staleAfter: number, now: Date): boolean {
  if (mode === 'force_blocking') return true;
  if (mode === 'force_cache') return false;
  return lastRefresh === null || now.getTime() - lastRefresh.getTime() >= staleAfter;
}
