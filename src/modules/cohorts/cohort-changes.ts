import type { CreateCohortDto, UpdateCohortDto } from './dto/cohort.dto';
import type { CohortEntity } from './cohort.entity';
import { nextDefinition, servedFilters, servedGroups, StoredDefinition } from './cohort-definition';

/** The columns a create or update writes. */
export interface CohortColumns {
  name: string;
  description: string;
  filters: StoredDefinition;
  isStatic: boolean;
  deleted: boolean;
}

/** Fields compared for the activity log, in PostHog's model field order. */
export const COHORT_ACTIVITY_FIELDS = ['name', 'description', 'groups', 'deleted', 'filters', 'is_static'] as const;

export function columnsForCreate(dto: CreateCohortDto): CohortColumns {
  return {
    name: dto.name ?? '',
    description: dto.description ?? '',
    filters: nextDefinition({}, dto),
    isStatic: dto.is_static ?? false,
    deleted: dto.deleted ?? false,
  };
}

export function columnsOf(cohort: CohortEntity): CohortColumns {
  return { name: cohort.name, description: cohort.description, filters: cohort.filters, isStatic: cohort.isStatic, deleted: cohort.deleted };
}

export function columnsForUpdate(current: CohortColumns, dto: UpdateCohortDto): CohortColumns {
  return {
    name: dto.name ?? current.name,
    description: dto.description ?? current.description,
    filters: nextDefinition(current.filters, dto),
    isStatic: dto.is_static ?? current.isStatic,
    deleted: dto.deleted ?? current.deleted,
  };
}

/** The definition has to be checked again: it changed, or the cohort stopped being a static list. */
export function definitionChanged(before: CohortColumns, after: CohortColumns): boolean {
  return after.filters !== before.filters || (before.isStatic && !after.isStatic);
}

/** The activity-log view of a cohort (PostHog's field names, served forms). */
export function activityView(columns: CohortColumns): Record<string, unknown> {
  return {
    name: columns.name,
    description: columns.description,
    groups: servedGroups(columns.filters),
    deleted: columns.deleted,
    filters: servedFilters(columns.filters),
    is_static: columns.isStatic,
  };
}
