import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { parseId } from '../../common/validation/patterns';
import { servedFilters as servedFlagFilters } from '../../kernel/flag-filters';
import { hasBehaviouralFilters, nestedCohortIds } from './cohort-filters';

/** A live cohort as the reference checks see it. */
export interface CohortNode {
  id: number;
  name: string;
  isStatic: boolean;
  filters: Record<string, unknown>;
}

/** A live flag as the usage checks see it. */
export interface FlagUsage {
  key: string;
  name: string;
  filters: Record<string, unknown>;
}

/** Static cohorts are lists of persons: whatever their filters say, they refer to nothing. */
function referencesOf(node: CohortNode | undefined): number[] {
  return node && !node.isStatic ? nestedCohortIds(node.filters) : [];
}

/** Every cohort reachable from `start` through nested references (`start` excluded unless on a cycle). */
function reachable(start: number[], live: ReadonlyMap<number, CohortNode>): Set<number> {
  const seen = new Set<number>();
  const stack = [...start];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...referencesOf(live.get(id)));
  }
  return seen;
}

/**
 * Nested cohorts must be live cohorts of the project, and a cohort must not reach itself through
 * them (PostHog's `will_create_loops`). `self` is the cohort being written, with its new filters.
 */
export function checkReferences(self: CohortNode | null, live: ReadonlyMap<number, CohortNode>, filters: Record<string, unknown>): void {
  const referenced = nestedCohortIds(filters);
  if (self !== null && referenced.includes(self.id)) throw ApiError.validation('Cohorts cannot reference other cohorts in a loop.', 'filters');
  if (referenced.some((id) => !live.has(id))) throw ApiError.validation('Invalid Cohort ID in filter', 'filters');
  if (self === null) return; // nothing refers to a cohort that does not exist yet
  const graph = new Map(live).set(self.id, { ...self, filters });
  if (reachable(referenced, graph).has(self.id)) throw ApiError.validation('Cohorts cannot reference other cohorts in a loop.', 'filters');
}

/** Cohort ids a flag's conditions name, directly. */
function flagCohortIds(flag: FlagUsage): number[] {
  const filters = servedFlagFilters(flag.filters);
  const conditions = [...(filters.groups ?? []), ...(filters.super_groups ?? []), ...(filters.holdout_groups ?? [])];
  return conditions.flatMap((condition) => {
    const properties = isJsonObject(condition) && Array.isArray(condition.properties) ? condition.properties : [];
    return properties.flatMap((p) => (isJsonObject(p) && p.type === 'cohort' ? [parseId(p.value)] : [])).filter((id): id is number => id !== null);
  });
}

/** Flags that depend on the cohort, directly or through cohorts nesting it (PostHog's `get_cohort_ids`). */
export function flagsUsing(cohortId: number, flags: FlagUsage[], live: ReadonlyMap<number, CohortNode>): FlagUsage[] {
  return flags.filter((flag) => reachable(flagCohortIds(flag), live).has(cohortId));
}

/**
 * A cohort flags depend on may not come to filter on events, itself or through a cohort it nests
 * (PostHog's `_validate_feature_flag_constraints`, same messages and code).
 */
export function checkUsableByFlags(filters: Record<string, unknown>, live: ReadonlyMap<number, CohortNode>): void {
  if (hasBehaviouralFilters(filters)) {
    throw ApiError.validation('Behavioral filters cannot be added to cohorts used in feature flags.', 'filters', 'behavioral_cohort_found');
  }
  for (const id of reachable(nestedCohortIds(filters), live)) {
    const nested = live.get(id);
    if (nested && !nested.isStatic && hasBehaviouralFilters(nested.filters)) {
      throw ApiError.validation(
        `A cohort dependency (${nested.name}) has filters based on events. These cohorts can't be used in feature flags.`,
        'filters',
        'behavioral_cohort_found',
      );
    }
  }
}

/** PostHog refuses to delete a cohort live flags depend on. */
export function checkDeletable(cohortId: number, flags: FlagUsage[], live: ReadonlyMap<number, CohortNode>): void {
  const using = flagsUsing(cohortId, flags, live);
  if (using.length === 0) return;
  const names = using.map((flag) => flag.name || flag.key).join(', ');
  throw ApiError.validation(
    `This cohort is used in ${using.length} feature flag(s): ${names}. Please remove the cohort from these feature flags before deleting it.`,
  );
}
