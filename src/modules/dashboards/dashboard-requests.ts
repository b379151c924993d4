import { ApiError } from '../../common/errors/api-error';
import { checkedDashboardFilters, DashboardFilters } from './dashboard-filters';

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
