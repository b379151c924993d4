import { isJsonObject } from '../../../common/json/json-object';
import type { FlagCondition, FlagFilters, PropertyFilter } from '../../feature-flags/flag-filters';
import { servedFilters, variantsOf } from '../../feature-flags/flag-filters';
import { holdoutHash, inRollout, rolloutHash, variantHash } from './hash';
import { matchesProperty } from './property-match';
import { pickVariant } from './variants';

export type FlagValue = boolean | string;

export type MatchReason =
  | 'condition_match'
  | 'no_condition_match'
  | 'out_of_rollout_bound'
  | 'no_group_type'
  | 'super_condition_value'
  | 'holdout_condition_value';

export interface FlagEvaluation {
  value: FlagValue;
  reason: MatchReason;
  conditionIndex: number | null;
  /** The payload of the matched variant (or of `true`), as stored. */
  payload: unknown;
}

/** What evaluation needs to know about a flag. */
export interface EvaluableFlag {
  id: number;
  key: string;
  filters: Record<string, unknown>;
  ensureExperienceContinuity: boolean;
}

/** Who the flag is evaluated for, with every property source already merged. */
export interface EvaluationSubject {
  distinctId: string;
  personProperties: Record<string, unknown>;
  /** Group type name → group key, from the request. */
  groups: Record<string, string>;
  /** Group type name → properties (stored, overridden by the request). */
  groupProperties: Record<string, Record<string, unknown>>;
  /** Group type index → name (the project's group type mapping). */
  groupTypes: ReadonlyMap<number, string>;
  /** Flag key → hash key from `$anon_distinct_id` (ensure_experience_continuity). */
  hashKeyOverrides?: ReadonlyMap<string, string>;
  /** Cohort membership, for `type: "cohort"` conditions. */
  inCohort?: (cohortId: number, properties: Record<string, unknown>) => boolean;
  /** Values of other flags, for `type: "flag"` dependencies. */
  flagValue?: (flagId: number) => FlagValue | undefined;
  now: Date;
}

/** Higher wins when no condition matched; ties go to the later condition (PostHog's `<=`). */
const REASON_PRIORITY: Record<MatchReason, number> = {
  super_condition_value: 4,
  holdout_condition_value: 3.5,
  condition_match: 3,
  no_group_type: 2,
  out_of_rollout_bound: 1,
  no_condition_match: 0,
};

interface Target {
  identifier: string;
  properties: Record<string, unknown>;
  /** The rollout hash depends only on flag key and identifier: computed once per evaluation. */
  rolloutHash: () => number;
}

function makeTarget(flagKey: string, identifier: string, properties: Record<string, unknown>): Target {
  let hash: number | undefined;
  return { identifier, properties, rolloutHash: () => (hash ??= rolloutHash(flagKey, identifier)) };
}

/** The bucketing identifier and properties: the person, or the group named by the flag's aggregation. */
function targetOf(flag: EvaluableFlag, filters: FlagFilters, subject: EvaluationSubject): Target | null {
  const index = filters.aggregation_group_type_index ?? null;
  if (index === null) {
    const override = flag.ensureExperienceContinuity ? subject.hashKeyOverrides?.get(flag.key) : undefined;
    return makeTarget(flag.key, override ?? subject.distinctId, subject.personProperties);
  }
  const typeName = subject.groupTypes.get(index);
  const key = typeName === undefined ? undefined : subject.groups[typeName];
  if (key === undefined || key === null || String(key) === '') return null;
  return makeTarget(flag.key, String(key), subject.groupProperties[typeName!] ?? {});
}

/** Flag dependency: `true` matches any truthy value, `false` only false, a string that exact variant. */
function dependencyMatches(expected: unknown, actual: FlagValue | undefined): boolean {
  if (actual === undefined) return false;
  if (expected === true) return actual !== false && actual !== '';
  if (expected === false) return actual === false;
  return typeof expected === 'string' && actual === expected;
}

/** Cohort membership; `operator: "not_in"` and `negation: true` each ask for non-membership (PostHog's `in` / `not_in`). */
function cohortPropertyMatches(property: PropertyFilter, target: Target, subject: EvaluationSubject): boolean {
  const member = subject.inCohort?.(Number(property.value), target.properties) ?? false;
  const negated = (property.operator === 'not_in') !== (property.negation === true);
  return negated ? !member : member;
}

function propertyMatches(property: PropertyFilter, target: Target, subject: EvaluationSubject): boolean {
  if (property.type === 'cohort') return cohortPropertyMatches(property, target, subject);
  if (property.type === 'flag') return dependencyMatches(property.value, subject.flagValue?.(Number(property.key)));
  return matchesProperty(property, target.properties, subject.now);
}

/** A condition's property filters; stored filters are validated, but a malformed entry must not break evaluation. */
function propertiesOf(condition: FlagCondition | undefined): PropertyFilter[] {
  const properties = isJsonObject(condition) && Array.isArray(condition.properties) ? condition.properties : [];
  return properties.filter((property): property is PropertyFilter => isJsonObject(property));
}

function conditionResult(condition: FlagCondition, target: Target, subject: EvaluationSubject): MatchReason {
  if (!isJsonObject(condition)) return 'no_condition_match';
  const properties = propertiesOf(condition);
  if (!properties.every((property) => propertyMatches(property, target, subject))) return 'no_condition_match';
  return inRollout(target.rolloutHash(), condition.rollout_percentage) ? 'condition_match' : 'out_of_rollout_bound';
}

function matched(flag: EvaluableFlag, filters: FlagFilters, identifier: string, override: unknown, reason: MatchReason, index: number | null): FlagEvaluation {
  const variants = variantsOf(filters);
  const overrideKey = typeof override === 'string' && variants.some((v) => v.key === override) ? override : null;
  const variant = overrideKey ?? (variants.length > 0 ? pickVariant(variants, variantHash(flag.key, identifier)) : null);
  const payloads = filters.payloads ?? {};
  return { value: variant ?? true, reason, conditionIndex: index, payload: payloads[variant ?? 'true'] ?? null };
}

/**
 * PostHog's `get_match` (reference/flags.md §2.3): super groups, then the first holdout, then the
 * condition sets in the order listed (CONTRACT §7); the first match wins.
 */
export function evaluateFlag(flag: EvaluableFlag, subject: EvaluationSubject): FlagEvaluation {
  const filters = servedFilters(flag.filters);
  const target = targetOf(flag, filters, subject);
  if (!target) return { value: false, reason: 'no_group_type', conditionIndex: null, payload: null };
  const early = superGroupResult(flag, filters, target, subject) ?? holdoutResult(flag, filters, target);
  if (early) return early;
  let best: { reason: MatchReason; index: number | null } = { reason: 'no_condition_match', index: 0 };
  const conditions = Array.isArray(filters.groups) ? filters.groups : [];
  for (const [index, condition] of conditions.entries()) {
    const reason = conditionResult(condition, target, subject);
    if (reason === 'condition_match') return matched(flag, filters, target.identifier, condition.variant, reason, index);
    if (REASON_PRIORITY[best.reason] <= REASON_PRIORITY[reason]) best = { reason, index };
  }
  return { value: false, reason: best.reason, conditionIndex: best.index, payload: null };
}

/** Early-access enrollment decides when the person carries one of its properties. */
function superGroupResult(flag: EvaluableFlag, filters: FlagFilters, target: Target, subject: EvaluationSubject): FlagEvaluation | null {
  const condition = Array.isArray(filters.super_groups) ? filters.super_groups[0] : undefined;
  const properties = propertiesOf(condition);
  if (!condition || !properties.some((p) => Object.prototype.hasOwnProperty.call(target.properties, p.key))) return null;
  if (conditionResult(condition, target, subject) === 'condition_match') {
    return matched(flag, filters, target.identifier, condition.variant, 'super_condition_value', 0);
  }
  return { value: false, reason: 'super_condition_value', conditionIndex: 0, payload: null };
}

/** Experiment holdouts: a fixed share of everyone, bucketed independently of the flag key. */
function holdoutResult(flag: EvaluableFlag, filters: FlagFilters, target: Target): FlagEvaluation | null {
  const holdout = Array.isArray(filters.holdout_groups) && isJsonObject(filters.holdout_groups[0]) ? filters.holdout_groups[0] : undefined;
  if (!holdout || (Array.isArray(holdout.properties) && holdout.properties.length > 0)) return null;
  if (!inRollout(holdoutHash(target.identifier), holdout.rollout_percentage)) return null;
  if (typeof holdout.variant !== 'string') return matched(flag, filters, target.identifier, null, 'holdout_condition_value', 0);
  // The holdout's own variant (`holdout-<id>`) is served as is, though it is no multivariate key.
  const payload = (filters.payloads ?? {})[holdout.variant] ?? null;
  return { value: holdout.variant, reason: 'holdout_condition_value', conditionIndex: 0, payload };
}
