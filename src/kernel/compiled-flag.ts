import { isJsonObject } from '../common/json/json-object';
import type { FlagCondition, FlagVariant, PropertyFilter } from './flag-filters';
import { conditionsOf, servedFilters, variantsOf } from './flag-filters';
import { compileProperty, PropertyTest } from './compiled-property';

/** One condition of a condition set, with what it reads decided once. */
export type CompiledProperty =
  | { kind: 'property'; test: PropertyTest }
  | { kind: 'cohort'; cohortId: number; negated: boolean }
  | { kind: 'flag'; flagId: number; expected: unknown };

export interface CompiledCondition {
  /** A stored condition that is not an object matches nothing (stored filters are not trusted). */
  valid: boolean;
  properties: CompiledProperty[];
  /** Keys of its property filters (super groups apply only when the target has one of them). */
  keys: unknown[];
  rolloutPercentage: number | null | undefined;
  /** As stored: only a string naming one of the variants overrides the hash. */
  variant: unknown;
}

/**
 * A flag's filters turned into what evaluation walks: done once per snapshot, so evaluating a request
 * neither re-reads the stored JSON nor re-parses the conditions' values.
 */
export interface CompiledFlag {
  id: number;
  key: string;
  ensureExperienceContinuity: boolean;
  /** `${key}.`: the prefix of its rollout and variant hashes. */
  hashPrefix: string;
  aggregationIndex: unknown;
  conditions: CompiledCondition[];
  superGroup: CompiledCondition | null;
  holdout: { rolloutPercentage: number | null | undefined; variant: unknown } | null;
  variants: FlagVariant[];
  payloads: Record<string, unknown>;
}

/** What evaluation needs to know about a flag. */
export interface EvaluableFlag {
  id: number;
  key: string;
  filters: Record<string, unknown>;
  ensureExperienceContinuity: boolean;
}

function compileFilter(property: PropertyFilter): CompiledProperty {
  if (property.type === 'cohort') {
    return { kind: 'cohort', cohortId: Number(property.value), negated: (property.operator === 'not_in') !== (property.negation === true) };
  }
  if (property.type === 'flag') return { kind: 'flag', flagId: Number(property.key), expected: property.value };
  return { kind: 'property', test: compileProperty(property) };
}

function compileCondition(condition: FlagCondition | undefined): CompiledCondition {
  const valid = isJsonObject(condition);
  const stored = valid && Array.isArray(condition.properties) ? condition.properties : [];
  const filters = stored.filter((property): property is PropertyFilter => isJsonObject(property));
  return {
    valid,
    properties: filters.map(compileFilter),
    keys: filters.map((property) => property.key),
    rolloutPercentage: valid ? condition.rollout_percentage : undefined,
    variant: valid ? condition.variant : undefined,
  };
}

/** Early access: only the first super group counts, and only an object can apply. */
function superGroupOf(groups: unknown): CompiledCondition | null {
  const condition = Array.isArray(groups) ? (groups[0] as unknown) : undefined;
  return isJsonObject(condition) ? compileCondition(condition) : null;
}

/** The first holdout group, when it is an object without properties. */
function holdoutOf(groups: unknown): CompiledFlag['holdout'] {
  const holdout = Array.isArray(groups) && isJsonObject(groups[0]) ? (groups[0] as FlagCondition) : undefined;
  if (!holdout || (Array.isArray(holdout.properties) && holdout.properties.length > 0)) return null;
  return { rolloutPercentage: holdout.rollout_percentage, variant: holdout.variant };
}

export function compileFlag(flag: EvaluableFlag): CompiledFlag {
  const filters = servedFilters(flag.filters);
  return {
    id: flag.id,
    key: flag.key,
    ensureExperienceContinuity: flag.ensureExperienceContinuity,
    hashPrefix: `${flag.key}.`,
    aggregationIndex: filters.aggregation_group_type_index ?? null,
    conditions: conditionsOf(filters).map(compileCondition),
    superGroup: superGroupOf(filters.super_groups),
    holdout: holdoutOf(filters.holdout_groups),
    variants: variantsOf(filters),
    payloads: (filters.payloads ?? {}) as Record<string, unknown>,
  };
}
