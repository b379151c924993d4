import { optionalUserBasicJson } from '../users/user-basic.presenter';
import type { CohortDto } from './dto/cohort.dto';
import type { CohortEntity } from './cohort.entity';
import { servedFilters, servedGroups } from './cohort-definition';

/**
 * PostHog's CohortSerializer. Cohorts are evaluated when flags are, never precalculated, so they
 * are never calculating and were last "calculated" when last changed.
 */
export function cohortJson(cohort: CohortEntity, memberCount: number | null): CohortDto {
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    groups: servedGroups(cohort.filters),
    deleted: cohort.deleted,
    filters: servedFilters(cohort.filters),
    query: null,
    is_calculating: false,
    created_by: optionalUserBasicJson(cohort.createdBy),
    created_at: cohort.createdAt.toISOString(),
    last_calculation: cohort.lastModifiedAt.toISOString(),
    errors_calculating: 0,
    count: cohort.isStatic ? memberCount ?? 0 : null,
    is_static: cohort.isStatic,
    experiment_set: [],
  };
}
