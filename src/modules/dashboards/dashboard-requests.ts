import { ApiError } from '../../common/errors/api-error';
import { queryText } from '../../common/http/query-values';
import { checkedDashboardFilters, DashboardFilters } from './dashboard-filters';

const MAX_SEARCH_LENGTH = 200;

/** `search`: at most 200 characters, as PostHog allows. */
export function searchOf(query: Record<string, unknown>): string | undefined {
  const search = queryText(query.search);
  if (search === undefined || search === '') return undefined;
  if (search.length > MAX_SEARCH_LENGTH) throw ApiError.validation(`search must be at most ${MAX_SEARCH_LENGTH} characters.`, 'search');
  return search;
}

/** `filters_override`: JSON filters laid over the dashboard's for one read. */
export function parseFiltersOverride(raw: string | undefined): DashboardFilters {
  if (raw === undefined || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw ApiError.validation('filters_override is not valid JSON: send {"date_from": "-30d"} URL-encoded.', 'filters_override');
  }
  return checkedDashboardFilters(parsed, 'filters_override');
}
