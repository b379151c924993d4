import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import { parseId } from '../../common/validation/patterns';
import { onUniqueViolation } from '../../database/query-errors';
import { ActivityLogsService, ActivityPageRequest } from '../activity-logs/activity-logs.service';
import { ActivityChange, changesBetween } from '../activity-logs/activity-changes';
import type { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import { CohortsService } from '../cohorts/cohorts.service';
import type { ProjectEntity } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import { RolesService } from '../roles/roles.service';
import type { CreateFeatureFlagDto, FeatureFlagDto, UpdateFeatureFlagDto } from './dto/feature-flag.dto';
import { featureFlagJson } from './feature-flag.presenter';
import type { FeatureFlagEntity } from './feature-flag.entity';
import { FeatureFlagsRepository, FlagColumns, FlagListFilters } from './feature-flags.repository';
import {
  activityView,
  checkKeyCharset,
  columnsForCreate,
  columnsForUpdate,
  columnsOf,
  duplicateKeyError,
  FLAG_ACTIVITY_FIELDS,
} from './flag-changes';
import { checkDependencies } from './flag-dependencies';
import type { LiveFlag } from '../../kernel/flag-filters';
import { validateFlagFilters } from './flag-filters-validation';
import { canEditFlag, FlagEditContext } from '../roles/flag-permissions';

const SCOPE = 'FeatureFlag';

const flagNotFound = () => ApiError.notFound();

@Injectable()
export class FeatureFlagsService {
  constructor(
    private readonly flags: FeatureFlagsRepository,
    private readonly roles: RolesService,
    private readonly cohorts: CohortsService,
    private readonly projects: ProjectsService,
    private readonly activity: ActivityLogsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async page(principal: UserPrincipal, project: ProjectEntity, filters: FlagListFilters, page: PageRequest, url: URL): Promise<Page<FeatureFlagDto>> {
    const { rows, count } = await this.flags.page(project.id, filters, page.limit, page.offset);
    const context = await this.editContext(principal, project);
    return buildPage(url, page, rows.map((flag) => featureFlagJson(flag, canEditFlag(context, flag))), count);
  }

  async describe(principal: UserPrincipal, project: ProjectEntity, rawId: string): Promise<FeatureFlagDto> {
    const flag = await this.require(project.id, rawId);
    return featureFlagJson(flag, canEditFlag(await this.editContext(principal, project), flag));
  }

  /** The flag (deleted ones included), or null for an unknown or malformed id. */
  findFlag(projectId: number, rawId: string): Promise<FeatureFlagEntity | null> {
    const id = parseId(rawId);
    return id === null ? Promise.resolve(null) : this.flags.find(projectId, id);
  }

  private async require(projectId: number, rawId: string): Promise<FeatureFlagEntity> {
    const flag = await this.findFlag(projectId, rawId);
    if (!flag) throw flagNotFound();
    return flag;
  }

  /** Live flags as evaluation reads them, newest first. */
  async liveFlags(projectId: number): Promise<LiveFlag[]> {
    const flags = await this.flags.liveForEvaluation(projectId);
    return flags.map(({ id, key, name, active, ensureExperienceContinuity, version, filters }) => ({
      id,
      key,
      name,
      active,
      ensureExperienceContinuity,
      version,
      filters,
    }));
  }

  editContext(principal: UserPrincipal, project: ProjectEntity): Promise<FlagEditContext> {
    return this.roles.flagEditContext(principal.user.id, project.organizationId);
  }

  async create(principal: UserPrincipal, project: ProjectEntity, dto: CreateFeatureFlagDto): Promise<FeatureFlagDto> {
    const columns = columnsForCreate(dto);
    const id = await this.keyGuarded(() =>
      this.dataSource.transaction(async (em) => {
        await this.checkWrite(em, project.id, null, columns);
        const id = await this.flags.insert(em, project.id, columns, principal.user.id);
        await this.log(em, principal, project, id, 'created', null, columns.key);
        await this.projects.bumpFlagsVersion(em, project.id);
        return id;
      }),
    );
    this.projects.flagsChanged(project.id);
    return this.describe(principal, project, String(id));
  }

  /**
   * The flag row is locked for the whole transaction, so concurrent PATCHes apply one after the
   * other, each on top of the previous one; a stale `version` gets 409 instead.
   */
  async update(principal: UserPrincipal, project: ProjectEntity, rawId: string, dto: UpdateFeatureFlagDto): Promise<FeatureFlagDto> {
    const id = parseId(rawId);
    if (id === null) throw flagNotFound();
    const context = await this.editContext(principal, project);
    await this.keyGuarded(() =>
      this.dataSource.transaction(async (em) => {
        const flag = await this.flags.findForUpdate(em, project.id, id);
        if (!flag) throw flagNotFound();
        if (!canEditFlag(context, flag)) throw ApiError.permissionDenied("You don't have edit permissions for this feature flag.");
        if (dto.version !== undefined && dto.version !== flag.version) throw staleVersion(flag);
        const before = columnsOf(flag);
        const after = columnsForUpdate(before, dto);
        const changes = changesBetween(SCOPE, activityView(before), activityView(after), FLAG_ACTIVITY_FIELDS);
        if (changes.length === 0 && dto.created_at === undefined) return;
        await this.checkWrite(em, project.id, flag, after, dto);
        await this.flags.update(em, project.id, flag.id, after, principal.user.id);
        if (changes.length > 0) await this.log(em, principal, project, flag.id, 'updated', changes, after.key);
        await this.projects.bumpFlagsVersion(em, project.id);
      }),
    );
    this.projects.flagsChanged(project.id);
    const updated = await this.require(project.id, rawId);
    return featureFlagJson(updated, canEditFlag(context, updated));
  }

  async activityPage(project: ProjectEntity, rawId: string | null, request: ActivityPageRequest, url: URL): Promise<ActivityLogPageDto> {
    if (rawId !== null) await this.require(project.id, rawId);
    return this.activity.page(project.id, SCOPE, rawId === null ? null : String(Number(rawId)), request, url);
  }

  /** Key uniqueness, key charset, then the filter rules and the things filters point at. */
  private async checkWrite(em: EntityManager, projectId: number, current: FeatureFlagEntity | null, next: FlagColumns, dto?: UpdateFeatureFlagDto): Promise<void> {
    const keyChanged = current === null || next.key !== current.key || (current.deleted && !next.deleted);
    if (keyChanged && !next.deleted && (await this.flags.liveKeyTaken(em, projectId, next.key, current?.id ?? null))) throw duplicateKeyError();
    if (current === null || dto?.key !== undefined) checkKeyCharset(next.key);
    // columnsForUpdate keeps the stored filters object unless the PATCH replaced it.
    if (current !== null && next.filters === current.filters) return;
    const references = validateFlagFilters(next.filters);
    await this.cohorts.assertUsableInFlags(projectId, references.cohortIds);
    if (references.flagIds.length > 0) {
      const live = await this.flags.liveFlagFilters(em, projectId);
      checkDependencies({ id: current?.id ?? null, key: next.key, filters: next.filters }, references.flagIds, live);
    }
  }

  private log(em: EntityManager, principal: UserPrincipal, project: ProjectEntity, flagId: number, activity: string, changes: ActivityChange[] | null, key: string) {
    return this.activity.recordChange(em, project, principal.user.id, { scope: SCOPE, itemId: flagId, activity, changes, name: key });
  }

  /** Two writers can pass the key check at once; the partial unique index decides. */
  private keyGuarded<T>(write: () => Promise<T>): Promise<T> {
    return onUniqueViolation(write, 'feature_flag_project_live_key', duplicateKeyError);
  }
}

function staleVersion(flag: FeatureFlagEntity): ApiError {
  const who = flag.lastModifiedBy?.email ?? 'another user';
  return ApiError.conflict(`The feature flag was updated by ${who} since you started editing it. Please refresh and try again.`);
}
