import { ownValue } from '../common/json/json-object';
import { compileFlag, CompiledCondition, CompiledFlag, CompiledProperty, EvaluableFlag } from './compiled-flag';
import { calculateHash, holdoutHash, inRollout, rolloutCoversEveryone } from './hash';
import { pickVariant } from './variants';

export type { CompiledFlag, EvaluableFlag } from './compiled-flag';

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

/** Whom the flag buckets: the person (or its hash-key override), or the group named by the flag's aggregation. */
interface Target {
  identifier: string;
  properties: Record<string, unknown>;
  /** The rollout hash depends only on flag key and identifier: computed at most once per evaluation. */
  hash: number;
}

const NO_HASH = -1;

function targetOf(flag: CompiledFlag, subject: EvaluationSubject): Target | null {
  const index = flag.aggregationIndex;
  if (index === null) {
    const override = flag.ensureExperienceContinuity ? subject.hashKeyOverrides?.get(flag.key) : undefined;
    return { identifier: override ?? subject.distinctId, properties: subject.personProperties, hash: NO_HASH };
  }
  const typeName = subject.groupTypes.get(index as number);
  const key = typeName === undefined ? undefined : ownValue(subject.groups, typeName);
  if (key === undefined || key === null || String(key) === '') return null;
  return { identifier: String(key), properties: ownValue(subject.groupProperties, typeName!) ?? {}, hash: NO_HASH };
}

function rolloutHashOf(flag: CompiledFlag, target: Target): number {
  if (target.hash === NO_HASH) target.hash = calculateHash(flag.hashPrefix, target.identifier);
  return target.hash;
}

/** Flag dependency: `true` matches any truthy value, `false` only false, a string that exact variant. */
function dependencyMatches(expected: unknown, actual: FlagValue | undefined): boolean {
  if (actual === undefined) return false;
  if (expected === true) return actual !== false && actual !== '';
  if (expected === false) return actual === false;
  return typeof expected === 'string' && actual === expected;
}

function propertyMatches(property: CompiledProperty, target: Target, subject: EvaluationSubject): boolean {
  switch (property.kind) {
    case 'property':
      return property.test(target.properties, subject.now);
    case 'cohort': {
      // `operator: "not_in"` and `negation: true` each ask for non-membership (PostHog's `in` / `not_in`).
      const member = subject.inCohort?.(property.cohortId, target.properties) ?? false;
      return property.negated ? !member : member;
    }
    case 'flag':
      return dependencyMatches(property.expected, subject.flagValue?.(property.flagId));
  }
}

function conditionResult(flag: CompiledFlag, condition: CompiledCondition, target: Target, subject: EvaluationSubject): MatchReason {
  if (!condition.valid) return 'no_condition_match';
  for (const property of condition.properties) if (!propertyMatches(property, target, subject)) return 'no_condition_match';
  if (rolloutCoversEveryone(condition.rolloutPercentage)) return 'condition_match';
  return inRollout(rolloutHashOf(flag, target), condition.rolloutPercentage) ? 'condition_match' : 'out_of_rollout_bound';
}

function matched(flag: CompiledFlag, identifier: string, override: unknown, reason: MatchReason, index: number | null): FlagEvaluation {
  const variants = flag.variants;
  const overrideKey = typeof override === 'string' && variants.some((v) => v.key === override) ? override : null;
  const variant = overrideKey ?? (variants.length > 0 ? pickVariant(variants, calculateHash(flag.hashPrefix, identifier, 'variant')) : null);
  return { value: variant ?? true, reason, conditionIndex: index, payload: ownValue(flag.payloads, variant ?? 'true') ?? null };
}

/**
 * PostHog's `get_match` (posthog/models/feature_flag/flag_matching.py): super groups, then the first holdout, then the
 * condition sets in the order listed, as SDK local evaluation does, so both agree; the first match wins.
 */
export function evaluateCompiled(flag: CompiledFlag, subject: EvaluationSubject): FlagEvaluation {
  const target = targetOf(flag, subject);
  if (!target) return { value: false, reason: 'no_group_type', conditionIndex: null, payload: null };
  const early = superGroupResult(flag, target, subject) ?? holdoutResult(flag, target);
  if (early) return early;
  let bestReason: MatchReason = 'no_condition_match';
  let bestIndex = 0;
  const conditions = flag.conditions;
  for (let index = 0; index < conditions.length; index++) {
    const condition = conditions[index];
    const reason = conditionResult(flag, condition, target, subject);
    if (reason === 'condition_match') return matched(flag, target.identifier, condition.variant, reason, index);
    if (REASON_PRIORITY[bestReason] <= REASON_PRIORITY[reason]) [bestReason, bestIndex] = [reason, index];
  }
  return { value: false, reason: bestReason, conditionIndex: bestIndex, payload: null };
}

/** One flag, compiled on the spot; hot paths compile once per snapshot and call `evaluateCompiled`. */
export function evaluateFlag(flag: EvaluableFlag, subject: EvaluationSubject): FlagEvaluation {
  return evaluateCompiled(compileFlag(flag), subject);
}

/** Early-access enrollment decides when the person carries one of its properties. */
function superGroupResult(flag: CompiledFlag, target: Target, subject: EvaluationSubject): FlagEvaluation | null {
  const condition = flag.superGroup;
  if (!condition || !condition.keys.some((key) => Object.hasOwn(target.properties, key as PropertyKey))) return null;
  if (conditionResult(flag, condition, target, subject) === 'condition_match') {
    return matched(flag, target.identifier, condition.variant, 'super_condition_value', 0);
  }
  return { value: false, reason: 'super_condition_value', conditionIndex: 0, payload: null };
}

/** Experiment holdouts: a fixed share of everyone, bucketed independently of the flag key. */
function holdoutResult(flag: CompiledFlag, target: Target): FlagEvaluation | null {
  const holdout = flag.holdout;
  if (!holdout) return null;
  if (!rolloutCoversEveryone(holdout.rolloutPercentage) && !inRollout(holdoutHash(target.identifier), holdout.rolloutPercentage)) return null;
  if (typeof holdout.variant !== 'string') return matched(flag, target.identifier, null, 'holdout_condition_value', 0);
  // The holdout's own variant (`holdout-<id>`) is served as is, though it is no multivariate key.
  return { value: holdout.variant, reason: 'holdout_condition_value', conditionIndex: 0, payload: ownValue(flag.payloads, holdout.variant) ?? null };
}
