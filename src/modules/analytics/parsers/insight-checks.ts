import { ApiError } from '../../../common/errors/api-error';
import { cohortIdsOf, PropertyNode } from '../../../kernel/property-filters';
import { InsightQuery, isSubDay } from '../model/insight-query';

/** Rules across fields that hold whichever door a query came through. */
export function checkInsight(query: InsightQuery): InsightQuery {
  if (isSubDay(query.interval) && query.series.some((s) => s.math === 'weekly_active' || s.math === 'monthly_active')) {
    throw ApiError.validation('Weekly and monthly active users are counted per day or longer: use interval day, week or month.', 'interval');
  }
  // PostHog offers minutes to trends only (its other insights list hour, day, week, month).
  if (query.interval === 'minute' && query.kind !== 'trends') {
    throw ApiError.validation(`interval "minute" is supported by trends only: use hour, day, week or month for ${query.kind}.`, 'interval');
  }
  if (query.kind === 'lifecycle' && query.aggregationGroupTypeIndex !== null) {
    throw ApiError.validation('Lifecycle counts persons: remove aggregation_group_type_index.', 'aggregation_group_type_index');
  }
  return query;
}

/**
 * Whether the query reads cohort membership, so cohorts must be loaded: a cohort breakdown, or a cohort in
 * any of its filters (the query's, the test accounts', a series', a funnel exclusion's, a retention
 * entity's, or those of the funnel that funnel paths follow).
 */
export function usesCohorts(query: InsightQuery, testAccountFilters: PropertyNode | null): boolean {
  if (query.breakdown?.kind === 'cohort') return true;
  const nodes = [
    query.properties, testAccountFilters, ...query.series.map((s) => s.properties), ...(query.funnel?.exclusions ?? []).map((e) => e.properties),
    query.retention?.target.properties ?? null, query.retention?.returning.properties ?? null,
  ];
  if (nodes.some((node) => cohortIdsOf(node).length > 0)) return true;
  return query.paths?.funnel ? usesCohorts(query.paths.funnel.query, testAccountFilters) : false;
}
