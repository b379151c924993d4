import { isJsonObject } from '../common/json/json-object';

/** `{key, value, operator?, type, group_type_index?, negation?}`. */
export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string | null;
  type?: string;
  group_type_index?: number | null;
  negation?: boolean;
  [extra: string]: unknown;
}

/** One condition set: properties AND-ed, then the rollout, then an optional variant override. */
export interface FlagCondition {
  properties?: PropertyFilter[];
  rollout_percentage?: number | null;
  variant?: string | null;
  [extra: string]: unknown;
}

export interface FlagVariant {
  key: string;
  name?: string;
  rollout_percentage: number;
  [extra: string]: unknown;
}

/** The `filters` object as served: always with `groups` (legacy forms are normalised). */
export interface FlagFilters {
  groups: FlagCondition[];
  multivariate?: { variants: FlagVariant[] } | null;
  payloads?: Record<string, unknown>;
  aggregation_group_type_index?: number | null;
  super_groups?: FlagCondition[];
  holdout_groups?: FlagCondition[];
  [extra: string]: unknown;
}

/** A live flag as evaluation and local evaluation read it. */
export interface LiveFlag {
  id: number;
  key: string;
  name: string;
  active: boolean;
  ensureExperienceContinuity: boolean;
  version: number;
  filters: Record<string, unknown>;
}

/**
 * PostHog's `get_filters()`: a flag stored without `groups` (legacy form, or created without
 * filters) is served as one condition with its properties and no rollout, i.e. on for everyone.
 */
export function servedFilters(stored: Record<string, unknown>): FlagFilters {
  if ('groups' in stored) return stored as FlagFilters;
  const properties = Array.isArray(stored.properties) ? (stored.properties as PropertyFilter[]) : [];
  const payloads = isJsonObject(stored.payloads) ? stored.payloads : {};
  return { groups: [{ properties, rollout_percentage: null }], payloads };
}

/** Variants of a multivariate flag; `multivariate` may be absent, null or malformed. */
export function variantsOf(filters: FlagFilters): FlagVariant[] {
  const variants = isJsonObject(filters.multivariate) ? filters.multivariate.variants : undefined;
  return Array.isArray(variants) ? variants.filter((variant): variant is FlagVariant => isJsonObject(variant)) : [];
}

/** The condition sets; `groups` may be absent or malformed in stored filters. */
export function conditionsOf(filters: FlagFilters): FlagCondition[] {
  return Array.isArray(filters.groups) ? filters.groups : [];
}

/** One condition, no properties, not group-based: the UI shows it as a plain percentage rollout. */
export function isSimpleFlag(filters: FlagFilters): boolean {
  const conditions = conditionsOf(filters);
  const noProperties = conditions.every((c) => !Array.isArray(c?.properties) || c.properties.length === 0);
  return conditions.length === 1 && noProperties && (filters.aggregation_group_type_index ?? null) === null;
}

export function simpleRolloutPercentage(filters: FlagFilters): number | null {
  return isSimpleFlag(filters) ? (conditionsOf(filters)[0]?.rollout_percentage ?? null) : null;
}

/** Early-access enrollment conditions name the flag key; a renamed flag must follow (PostHog API-24). */
export function renameEnrollmentKey(filters: Record<string, unknown>, oldKey: string, newKey: string): Record<string, unknown> {
  if (!Array.isArray(filters.super_groups)) return filters;
  const from = `$feature_enrollment/${oldKey}`;
  const superGroups = filters.super_groups.map((group: FlagCondition) => ({
    ...group,
    properties: (group.properties ?? []).map((p) => (p.key === from ? { ...p, key: `$feature_enrollment/${newKey}` } : p)),
  }));
  return { ...filters, super_groups: superGroups };
}
