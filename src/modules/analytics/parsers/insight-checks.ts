import { ApiError } from '../../../common/errors/api-error';
import { cohortIdsOf, PropertyNode } from '../../events/property-filters';
import type { InsightQuery } from '../model/insight-query';

/** Rules across fields that hold whichever door a query came through. */
export function checkInsight(query: InsightQuery): InsightQuery {
  if (query.interval === 'hour' && query.series.some((s) => s.math === 'weekly_active' || s.math === 'monthly_active')) {
    throw ApiError.validation('Weekly and monthly active users are counted per day or longer: use interval day, week or month.', 'interval');
  }
  if (query.kind === 'lifecycle' && query.aggregationGroupTypeIndex !== null) {
    throw ApiError.validation('Lifecycle counts persons: remove aggregation_group_type_index.', 'aggregation_group_type_index');
  }
  return query;
}

/** Whether the query reads cohort membership (filters or a cohort breakdown), so cohorts must be loaded. */
export function usesCohorts(query: InsightQuery, testAccountFilters: PropertyNode | null): boolean {
  if (query.breakdown?.kind === 'cohort') return true;
  return [query.properties, testAccountFilters, ...query.series.map((s) => s.properties)].some((node) => cohortIdsOf(node).length > 0);
}
