import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import type { ProjectEntity } from '../projects/project.entity';
import { inCohort } from '../../kernel/cohort-match';
import { compileFlag, CompiledFlag } from '../../kernel/compiled-flag';
import { evaluateCompiled, EvaluationSubject, FlagValue, MatchReason } from '../../kernel/evaluate';
import { BlastRadiusRepository } from './blast-radius.repository';
import type { BlastRadiusRequest } from './flag-insights-requests';
import { FlagEvaluationService } from './flag-evaluation.service';
import type { FlagSnapshot } from './flag-snapshot';
import { FlagSnapshotsService } from './flag-snapshots.service';
import { minimalFlagJson } from './local-evaluation';

const PAGE = 5_000;

export interface EvaluationReason {
  value: FlagValue;
  evaluation: { reason: MatchReason | 'disabled'; condition_index: number | null };
}

/** The evaluation-backed management endpoints: my_flags, evaluation_reasons, user_blast_radius. */
@Injectable()
export class FlagInsightsService {
  constructor(
    private readonly snapshots: FlagSnapshotsService,
    private readonly evaluation: FlagEvaluationService,
    private readonly rows: BlastRadiusRepository,
  ) {}

  /** Every live flag, newest first, with its value for the calling user; inactive flags are `false`. */
  async myFlags(principal: UserPrincipal, project: ProjectEntity, groups: Record<string, string>) {
    const snapshot = await this.snapshots.get(project.id);
    const values = await this.values(snapshot, principal.user.distinctId, groups);
    return snapshot.flags.map((flag) => ({ feature_flag: minimalFlagJson(snapshot, flag), value: values.get(flag.key)?.value ?? false }));
  }

  async evaluationReasons(project: ProjectEntity, distinctId: string, groups: Record<string, string>): Promise<Record<string, EvaluationReason>> {
    const snapshot = await this.snapshots.get(project.id);
    const values = await this.values(snapshot, distinctId, groups);
    // Flag keys may be `__proto__`, which a plain object would take as its prototype instead of a key.
    const reasons: Record<string, EvaluationReason> = Object.create(null);
    for (const flag of snapshot.flags) {
      const evaluated = values.get(flag.key);
      reasons[flag.key] = evaluated
        ? { value: evaluated.value, evaluation: { reason: evaluated.reason, condition_index: evaluated.conditionIndex } }
        : { value: false, evaluation: { reason: 'disabled', condition_index: null } };
    }
    return reasons;
  }

  private async values(snapshot: FlagSnapshot, distinctId: string, groups: Record<string, string>) {
    const request = { distinctId, groups, personProperties: {}, groupProperties: {} };
    const outcome = await this.evaluation.evaluate(snapshot, request);
    if (outcome.errors) throw ApiError.unavailable('Feature flags could not be evaluated. Please try again.');
    return new Map(outcome.results.map((r) => [r.flag.key, r.evaluation]));
  }

  /** How many persons (or groups of one type) the condition's properties match; the rollout is the caller's. */
  async blastRadius(project: ProjectEntity, request: BlastRadiusRequest): Promise<{ users_affected: number; total_users: number }> {
    const snapshot = await this.snapshots.get(project.id);
    const flag = compileFlag({
      id: 0,
      key: '$blast_radius',
      ensureExperienceContinuity: false,
      filters: { groups: [{ properties: request.properties, rollout_percentage: 100 }], aggregation_group_type_index: request.groupTypeIndex },
    });
    const counts = request.groupTypeIndex === null ? await this.countPersons(snapshot, flag) : await this.countGroups(snapshot, flag, request.groupTypeIndex);
    return { users_affected: counts.matched, total_users: counts.total };
  }

  private async countPersons(snapshot: FlagSnapshot, flag: CompiledFlag) {
    const counts = { matched: 0, total: 0 };
    const now = new Date();
    let after = '0';
    for (;;) {
      const page = await this.rows.personsAfter(snapshot.projectId, after, PAGE);
      if (page.length === 0) return counts;
      for (const person of page) {
        const staticMemberships = new Set(person.cohorts);
        const subject = this.subject(snapshot, now, { personProperties: person.properties ?? {} });
        subject.inCohort = (id, properties) => inCohort(id, properties, { cohorts: snapshot.cohorts, staticMemberships, now });
        counts.total += 1;
        if (evaluateCompiled(flag, subject).reason === 'condition_match') counts.matched += 1;
      }
      after = page[page.length - 1].id;
    }
  }

  private async countGroups(snapshot: FlagSnapshot, flag: CompiledFlag, typeIndex: number) {
    const counts = { matched: 0, total: 0 };
    // Rows are read by index, so the type's name does not matter (and a type seen a moment ago may not be cached yet).
    const typeName = '$group';
    const groupTypes = new Map([[typeIndex, typeName]]);
    const now = new Date();
    let after: string | null = null;
    for (;;) {
      const page = await this.rows.groupsAfter(snapshot.projectId, typeIndex, after, PAGE);
      if (page.length === 0) return counts;
      for (const group of page) {
        const subject = this.subject(snapshot, now, { groups: { [typeName]: group.key }, groupProperties: { [typeName]: group.properties ?? {} }, groupTypes });
        counts.total += 1;
        if (evaluateCompiled(flag, subject).reason === 'condition_match') counts.matched += 1;
      }
      after = page[page.length - 1].key;
    }
  }

  private subject(snapshot: FlagSnapshot, now: Date, parts: Partial<EvaluationSubject>): EvaluationSubject {
    return { distinctId: '', personProperties: {}, groups: {}, groupProperties: {}, groupTypes: snapshot.groupTypes, now, ...parts };
  }
}
