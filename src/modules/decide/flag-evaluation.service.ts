import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventLoopSlices } from '../../common/async/event-loop-slices';
import { ownValue, pickedObject } from '../../common/json/json-object';
import { inCohort } from '../../kernel/cohort-match';
import { evaluateCompiled, EvaluationSubject, FlagEvaluation, FlagValue } from '../../kernel/evaluate';
import { EvaluationContext, EvaluationContextRepository, StoredPerson } from './evaluation-context.repository';
import { FlagSet, flagSet, FlagSnapshot, SnapshotFlag } from './flag-snapshot';

/** Who to evaluate for, as the request (or the management API) describes them. */
export interface EvaluationRequest {
  distinctId: string;
  /** posthog-js sends the previous anonymous id once after `identify` (experience continuity). */
  anonDistinctId?: string | null;
  groups: Record<string, string>;
  personProperties: Record<string, unknown>;
  groupProperties: Record<string, Record<string, unknown>>;
  /** Evaluate only these keys (null: every active flag). */
  flagKeys?: string[] | null;
  /** Inactive flags too (my_flags); /decide evaluates active flags only. */
  includeInactive?: boolean;
}

export interface EvaluatedFlag {
  flag: SnapshotFlag;
  evaluation: FlagEvaluation;
}

export interface EvaluationOutcome {
  results: EvaluatedFlag[];
  /** Some flag could not be evaluated (its data could not be loaded) and is left out. */
  errors: boolean;
}

interface LoadedContext {
  person: StoredPerson | null;
  personFailed: boolean;
  groups: Map<number, Record<string, unknown>>;
  groupsFailed: boolean;
  overrides: Map<string, string>;
  overridesFailed: boolean;
}

/**
 * How long one request's flags are evaluated before the event loop serves others: a project with many flags that read
 * long values (a regex over a 60,000-character URL) must not hold captures and other evaluations behind it.
 */
const EVALUATION_SLICE_MS = 5;

/** Loads what the flags of one request need (at most one query per source) and runs the engine. */
@Injectable()
export class FlagEvaluationService {
  private readonly logger = new Logger(FlagEvaluationService.name);

  constructor(@Inject(EvaluationContextRepository) private readonly context: EvaluationContext) {}

  async evaluate(snapshot: FlagSnapshot, request: EvaluationRequest): Promise<EvaluationOutcome> {
    const targets = this.targets(snapshot, request);
    // Only the keys some condition reads are copied: a request may send thousands.
    const personOverrides = pickedObject(snapshot.propertyKeys, request.personProperties, { distinct_id: request.distinctId });
    const loaded = await this.load(snapshot, request, targets, personOverrides);
    const subject = withDependencies(this.subject(snapshot, request, loaded, personOverrides), snapshot);
    const results: EvaluatedFlag[] = [];
    let errors = loaded.overridesFailed;
    const slices = new EventLoopSlices(EVALUATION_SLICE_MS);
    for (const flag of targets.flags) {
      if (slices.due()) await slices.nextSlice();
      if ((loaded.personFailed && this.needsStoredPerson(flag, personOverrides)) || (loaded.groupsFailed && flag.groupIndexes.size > 0)) {
        errors = true;
        continue;
      }
      results.push({ flag, evaluation: evaluateCompiled(flag.compiled, subject) });
    }
    return { results, errors };
  }

  private targets(snapshot: FlagSnapshot, request: EvaluationRequest): FlagSet {
    if (!request.flagKeys && !request.includeInactive) return snapshot.activeFlags;
    const wanted = request.flagKeys ? new Set(request.flagKeys) : null;
    return flagSet(snapshot.flags.filter((flag) => (flag.active || request.includeInactive) && (!wanted || wanted.has(flag.key))));
  }

  /** Request properties that cover every key the flags read spare the person lookup (PostHog does the same). */
  private needsStoredPerson(flags: { usesCohorts: boolean; personKeys: Iterable<string> }, overrides: Record<string, unknown>): boolean {
    if (flags.usesCohorts) return true;
    for (const key of flags.personKeys) if (!Object.hasOwn(overrides, key)) return true;
    return false;
  }

  private async load(snapshot: FlagSnapshot, request: EvaluationRequest, targets: FlagSet, overrides: Record<string, unknown>): Promise<LoadedContext> {
    const needsPerson = this.needsStoredPerson(targets, overrides);
    const wantedGroups = this.wantedGroups(snapshot, request, targets);
    const continuityKeys = targets.continuityKeys;
    const [person, groups, overridesLoaded] = await Promise.all([
      needsPerson ? this.attempt(() => this.context.person(snapshot.projectId, request.distinctId)) : { value: null, failed: false },
      this.attempt(() => this.context.groups(snapshot.projectId, wantedGroups)),
      continuityKeys.length > 0 ? this.attempt(() => this.continuityOverrides(snapshot, request, continuityKeys)) : { value: new Map(), failed: false },
    ]);
    return {
      person: person.value,
      personFailed: person.failed,
      groups: groups.value ?? new Map(),
      groupsFailed: groups.failed,
      overrides: overridesLoaded.value ?? new Map(),
      overridesFailed: overridesLoaded.failed,
    };
  }

  private async attempt<T>(load: () => Promise<T>): Promise<{ value: T | null; failed: boolean }> {
    try {
      return { value: await load(), failed: false };
    } catch (error) {
      this.logger.warn(`evaluation data could not be loaded: ${(error as Error).message}`);
      return { value: null, failed: true };
    }
  }

  private wantedGroups(snapshot: FlagSnapshot, request: EvaluationRequest, targets: FlagSet): Array<{ index: number; key: string }> {
    const wanted: Array<{ index: number; key: string }> = [];
    for (const index of targets.groupIndexes) {
      const name = snapshot.groupTypes.get(index);
      const key = name === undefined ? undefined : ownValue(request.groups, name);
      if (key) wanted.push({ index, key });
    }
    return wanted;
  }

  /** Reads the overrides; with an `$anon_distinct_id`, first writes those still missing (first one wins). */
  private async continuityOverrides(snapshot: FlagSnapshot, request: EvaluationRequest, flagKeys: string[]): Promise<Map<string, string>> {
    const anon = request.anonDistinctId;
    const ids = anon && anon !== request.distinctId ? [request.distinctId, anon] : [request.distinctId];
    const existing = await this.context.hashKeyOverrides(snapshot.projectId, ids);
    if (!anon || flagKeys.every((key) => existing.has(key))) return existing;
    await this.context.writeHashKeyOverrides(snapshot.projectId, ids, anon, flagKeys);
    return this.context.hashKeyOverrides(snapshot.projectId, ids);
  }

  private subject(snapshot: FlagSnapshot, request: EvaluationRequest, loaded: LoadedContext, overrides: Record<string, unknown>): EvaluationSubject {
    // Keyed by group type names, which anyone with the project token can choose (even `__proto__`).
    const groupProperties: Record<string, Record<string, unknown>> = Object.create(null);
    for (const [index, name] of snapshot.groupTypes) {
      const key = ownValue(request.groups, name);
      if (key === undefined) continue;
      const properties = pickedObject(snapshot.propertyKeys, loaded.groups.get(index), ownValue(request.groupProperties, name));
      properties.$group_key = key;
      groupProperties[name] = properties;
    }
    const staticMemberships = new Set(loaded.person?.staticCohortIds ?? []);
    const now = new Date();
    return {
      distinctId: request.distinctId,
      personProperties: pickedObject(snapshot.propertyKeys, loaded.person?.properties, overrides),
      groups: request.groups,
      groupProperties,
      groupTypes: snapshot.groupTypes,
      hashKeyOverrides: loaded.overrides,
      inCohort: (cohortId, properties) => inCohort(cohortId, properties, { cohorts: snapshot.cohorts, staticMemberships, now }),
      now,
    };
  }
}

/**
 * The subject with `flagValue`, made once per request rather than once per flag (a copy per flag cost
 * more than most flags' matching). Dependencies are evaluated on demand, once per request; an inactive
 * or missing dependency is `false`.
 */
function withDependencies(subject: EvaluationSubject, snapshot: FlagSnapshot): EvaluationSubject {
  const memo = new Map<number, FlagValue>();
  const withFlags: EvaluationSubject = {
    ...subject,
    flagValue: (id) => {
      const dependency = snapshot.byId.get(id);
      if (!dependency || !dependency.active) return false;
      if (!memo.has(id)) {
        memo.set(id, false); // a cycle (refused at write time) reads as false instead of recursing forever
        memo.set(id, evaluateCompiled(dependency.compiled, withFlags).value);
      }
      return memo.get(id);
    },
  };
  return withFlags;
}
