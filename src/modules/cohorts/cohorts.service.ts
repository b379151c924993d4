import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import { parseId } from '../../common/validation/patterns';
import { ActivityChange, changesBetween } from '../activity-logs/activity-changes';
import { ActivityLogsService } from '../activity-logs/activity-logs.service';
import type { CohortDefinition } from '../../kernel/cohort-match';
import type { ProjectEntity } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import { activityView, COHORT_ACTIVITY_FIELDS, CohortColumns, columnsForCreate, columnsForUpdate, columnsOf, definitionChanged } from './cohort-changes';
import { checkDefinition, DefinitionInput, StoredDefinition } from './cohort-definition';
import { hasBehaviouralFilters, nestedCohortIds } from './cohort-filters';
import { checkDeletable, checkReferences, checkUsableByFlags, CohortNode, flagsUsing } from './cohort-graph';
import { cohortJson } from './cohort.presenter';
import type { CohortEntity } from './cohort.entity';
import { CohortListFilters, CohortsRepository } from './cohorts.repository';
import type { CohortDto, CreateCohortDto, UpdateCohortDto } from './dto/cohort.dto';
import { checkMemberFields, parseAddPersons, parseRemovePerson, personUuids } from './static-members';

/** How deep nested cohort references are followed before giving up (guards against reference cycles). */
const MAX_NESTING = 20;
const SCOPE = 'Cohort';

/** A write's definition in the form the shape rules read: what it sent, or what is stored. */
function definitionInput(dto: UpdateCohortDto, stored: StoredDefinition): DefinitionInput {
  if (dto.filters !== undefined || dto.groups !== undefined) return { filters: dto.filters, groups: dto.groups };
  return {
    filters: stored.properties !== undefined ? { properties: stored.properties } : undefined,
    groups: Array.isArray(stored.groups) ? stored.groups : undefined,
  };
}

@Injectable()
export class CohortsService {
  constructor(
    private readonly cohorts: CohortsRepository,
    private readonly projects: ProjectsService,
    private readonly activity: ActivityLogsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async page(project: ProjectEntity, filters: CohortListFilters, page: PageRequest, url: URL): Promise<Page<CohortDto>> {
    const { rows, count } = await this.cohorts.page(project.id, filters, page.limit, page.offset);
    const members = await this.cohorts.memberCounts(project.id, rows.filter((c) => c.isStatic).map((c) => c.id));
    return buildPage(url, page, rows.map((c) => cohortJson(c, members.get(c.id) ?? 0)), count);
  }

  async describe(project: ProjectEntity, rawId: string): Promise<CohortDto> {
    const id = parseId(rawId);
    const cohort = id === null ? null : await this.cohorts.find(project.id, id);
    if (!cohort) throw ApiError.notFound();
    return this.present(project.id, cohort);
  }

  private async present(projectId: number, cohort: CohortEntity): Promise<CohortDto> {
    const members = cohort.isStatic ? await this.cohorts.memberCounts(projectId, [cohort.id]) : new Map<number, number>();
    return cohortJson(cohort, members.get(cohort.id) ?? 0);
  }

  /** Live cohorts of the project as flag evaluation reads them. */
  liveDefinitions(projectId: number): Promise<CohortDefinition[]> {
    return this.cohorts.liveDefinitions(projectId);
  }

  async create(principal: UserPrincipal, project: ProjectEntity, dto: CreateCohortDto): Promise<CohortDto> {
    const columns = columnsForCreate(dto);
    checkMemberFields(dto, columns.isStatic);
    if (!columns.isStatic) checkDefinition(dto);
    const id = await this.dataSource.transaction(async (em) => {
      await this.lockProjectCohorts(em, project.id);
      if (!columns.isStatic) checkReferences(null, await this.liveGraph(em, project.id), columns.filters);
      const id = await this.cohorts.insert(em, project.id, columns, principal.user.id);
      await this.addListedMembers(em, project.id, id, dto);
      await this.log(em, principal, project, id, 'created', null, columns.name);
      return id;
    });
    this.projects.flagsChanged(project.id);
    return this.present(project.id, (await this.cohorts.findAny(project.id, id))!);
  }

  /** The cohort row is locked for the whole transaction; every cohort write of the project is serialised. */
  async update(principal: UserPrincipal, project: ProjectEntity, rawId: string, dto: UpdateCohortDto): Promise<CohortDto> {
    const id = parseId(rawId);
    if (id === null) throw ApiError.notFound();
    await this.dataSource.transaction(async (em) => {
      await this.lockProjectCohorts(em, project.id);
      const cohort = await this.cohorts.findForUpdate(em, project.id, id);
      if (!cohort) throw ApiError.notFound();
      const before = columnsOf(cohort);
      const after = columnsForUpdate(before, dto);
      checkMemberFields(dto, after.isStatic);
      await this.checkUpdate(em, project.id, cohort, before, after, dto);
      await this.cohorts.update(em, project.id, id, after);
      await this.addListedMembers(em, project.id, id, dto);
      const changes = changesBetween(SCOPE, activityView(before), activityView(after), COHORT_ACTIVITY_FIELDS);
      await this.log(em, principal, project, id, 'updated', changes, after.name);
    });
    this.projects.flagsChanged(project.id);
    return this.present(project.id, (await this.cohorts.findAny(project.id, id))!);
  }

  /**
   * Deleting: no live flag may depend on the cohort. Otherwise, when the definition changes on a
   * dynamic cohort: its shape, its nested cohorts, and no events if flags depend on it.
   */
  private async checkUpdate(em: EntityManager, projectId: number, cohort: CohortEntity, before: CohortColumns, after: CohortColumns, dto: UpdateCohortDto): Promise<void> {
    const deleting = after.deleted && !before.deleted;
    if (!deleting && (after.isStatic || !definitionChanged(before, after))) return;
    if (!deleting) checkDefinition(definitionInput(dto, after.filters));
    const [live, flags] = await Promise.all([this.liveGraph(em, projectId), this.cohorts.liveFlagUsages(em, projectId)]);
    if (deleting) return checkDeletable(cohort.id, flags, live);
    checkReferences({ id: cohort.id, name: cohort.name, isStatic: false, filters: before.filters }, live, after.filters);
    if (flagsUsing(cohort.id, flags, live).length > 0) checkUsableByFlags(after.filters, live);
  }

  /** `person_ids` is checked after the cohort, as PostHog does; its messages are PostHog's. */
  async addPersons(principal: UserPrincipal, project: ProjectEntity, rawId: string, personIds: unknown): Promise<{ success: true }> {
    await this.memberChange(principal, project, rawId, 'persons_added_manually', async (em, cohort) => {
      if (!cohort.isStatic) throw ApiError.validation('Can only add users to static cohorts');
      const found = await this.cohorts.addMembersByUuid(em, project.id, cohort.id, parseAddPersons(personIds));
      if (found === 0) throw ApiError.validation('No valid users to add to cohort');
    });
    return { success: true };
  }

  async removePerson(principal: UserPrincipal, project: ProjectEntity, rawId: string, rawPersonId: unknown): Promise<{ success: true }> {
    await this.memberChange(principal, project, rawId, 'person_removed_manually', async (em, cohort) => {
      if (!cohort.isStatic) throw ApiError.validation('Can only remove users from static cohorts');
      const personId = await this.cohorts.personIdByUuid(em, project.id, parseRemovePerson(rawPersonId));
      if (personId === null) throw ApiError.notFound("Person with this UUID does not exist in the cohort's team");
      if (!(await this.cohorts.removeMember(em, project.id, cohort.id, personId))) throw ApiError.notFound('Person is not part of the cohort');
    });
    return { success: true };
  }

  /** A static member change: locked like any cohort write, logged, and bumps the flags version. */
  private async memberChange(
    principal: UserPrincipal,
    project: ProjectEntity,
    rawId: string,
    activity: string,
    change: (em: EntityManager, cohort: CohortEntity) => Promise<void>,
  ): Promise<void> {
    const id = parseId(rawId);
    if (id === null) throw ApiError.notFound();
    await this.dataSource.transaction(async (em) => {
      await this.lockProjectCohorts(em, project.id);
      const cohort = await this.cohorts.findForUpdate(em, project.id, id);
      if (!cohort) throw ApiError.notFound();
      await change(em, cohort);
      await this.cohorts.touch(em, project.id, id);
      await this.log(em, principal, project, id, activity, null, cohort.name);
    });
    this.projects.flagsChanged(project.id);
  }

  /**
   * Bumping the flags version first takes the project row lock, so cohort writes of one project
   * apply one after another and reference checks never race (two cohorts made to nest each other).
   * After the commit, `flagsChanged` lets this process's evaluation caches reload at once.
   */
  private lockProjectCohorts(em: EntityManager, projectId: number): Promise<void> {
    return this.projects.bumpFlagsVersion(em, projectId);
  }

  private async liveGraph(em: EntityManager, projectId: number): Promise<Map<number, CohortNode>> {
    return new Map((await this.cohorts.liveNodes(em, projectId)).map((node) => [node.id, node]));
  }

  private async addListedMembers(em: EntityManager, projectId: number, cohortId: number, dto: CreateCohortDto): Promise<void> {
    if (dto.person_ids) await this.cohorts.addMembersByUuid(em, projectId, cohortId, personUuids(dto.person_ids));
    if (dto.distinct_ids) await this.cohorts.addMembersByDistinctId(em, projectId, cohortId, [...new Set(dto.distinct_ids)]);
  }

  private log(em: EntityManager, principal: UserPrincipal, project: ProjectEntity, cohortId: number, activity: string, changes: ActivityChange[] | null, name: string) {
    return this.activity.recordChange(em, project, principal.user.id, { scope: SCOPE, itemId: cohortId, activity, changes, name });
  }

  /**
   * Flags may target existing property cohorts only: a missing cohort or one that (itself or
   * through nested cohorts) filters on behaviour is refused with PostHog's codes.
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
