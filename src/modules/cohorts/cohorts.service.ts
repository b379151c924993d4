import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { hasBehaviouralFilters, nestedCohortIds } from './cohort-filters';
import type { CohortEntity } from './cohort.entity';
import { CohortsRepository } from './cohorts.repository';

/** How deep nested cohort references are followed before giving up (guards against reference cycles). */
const MAX_NESTING = 20;

@Injectable()
export class CohortsService {
  constructor(private readonly cohorts: CohortsRepository) {}

  /**
   * Flags may target existing property cohorts only: a missing cohort or one that (itself or
   * through nested cohorts) filters on behaviour is refused with PostHog's codes (§5.4).
   */
  async assertUsableInFlags(projectId: number, ids: number[]): Promise<void> {
    const requested = [...new Set(ids)];
    const found = new Map((await this.cohorts.findLive(projectId, requested)).map((c) => [c.id, c]));
    const missing = requested.find((id) => !found.has(id));
    if (missing !== undefined) {
      throw ApiError.validation(`Cohort with id ${missing} does not exist`, 'filters', 'cohort_does_not_exist');
    }
    for (const cohort of found.values()) {
      const behavioural = await this.behaviouralIn(projectId, cohort, new Set(), 0);
      if (behavioural) {
        throw ApiError.validation(
          `Cohort '${behavioural.name}' with filters on events cannot be used in feature flags.`,
          'filters',
          'behavioral_cohort_found',
        );
      }
    }
  }

  private async behaviouralIn(projectId: number, cohort: CohortEntity, seen: Set<number>, depth: number): Promise<CohortEntity | null> {
    if (cohort.isStatic || seen.has(cohort.id) || depth > MAX_NESTING) return null;
    if (hasBehaviouralFilters(cohort.filters)) return cohort;
    seen.add(cohort.id);
    for (const nested of await this.cohorts.findLive(projectId, nestedCohortIds(cohort.filters))) {
      if (await this.behaviouralIn(projectId, nested, seen, depth + 1)) return cohort;
    }
    return null;
  }
}
