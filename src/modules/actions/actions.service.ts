import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { parseId } from '../../common/validation/patterns';
import { onUniqueViolation } from '../../database/query-errors';
import { ActivityChange, changesBetween } from '../activity-logs/activity-changes';
import { ActivityLogsService, ActivityPageRequest } from '../activity-logs/activity-logs.service';
import type { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import type { ProjectEntity } from '../projects/project.entity';
import { ACTION_ACTIVITY_FIELDS, ActionColumns, activityView, columnsForCreate, columnsForUpdate, columnsOf } from './action-changes';
import { actionJson } from './action.presenter';
import type { ActionDefinition } from './action-steps';
import { ActionMatcher, actionMatcher } from './action-matcher';
import { ActionsRepository } from './actions.repository';
import type { ActionDto, ActionListDto, CreateActionDto, UpdateActionDto } from './dto/action.dto';

const SCOPE = 'Action';
const NAME_INDEX = 'action_project_name_live_key';

function nameTaken(id: number | null): ApiError {
  return ApiError.validation(`This project already has an action with this name${id === null ? '' : `, ID ${id}`}`, 'name', 'unique');
}

/** Actions: the management API, and the definitions insights match events against. */
@Injectable()
export class ActionsService {
  constructor(
    private readonly actions: ActionsRepository,
    private readonly activity: ActivityLogsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async list(project: ProjectEntity): Promise<ActionListDto> {
    return { results: (await this.actions.list(project.id)).map(actionJson) };
  }

  async describe(project: ProjectEntity, rawId: string): Promise<ActionDto> {
    const id = parseId(rawId);
    const action = id === null ? null : await this.actions.find(project.id, id);
    if (!action) throw ApiError.notFound();
    return actionJson(action);
  }

  /** A live action of the project as events are matched against it, or null when there is none. */
  async liveMatcher(projectId: number, id: number): Promise<ActionMatcher | null> {
    const definition = await this.actions.liveDefinition(projectId, id);
    return definition ? actionMatcher(definition) : null;
  }

  /** Live actions of the project, as insights read them. */
  liveDefinitions(projectId: number): Promise<ActionDefinition[]> {
    return this.actions.liveDefinitions(projectId);
  }

  async create(principal: UserPrincipal, project: ProjectEntity, dto: CreateActionDto): Promise<ActionDto> {
    const columns = columnsForCreate(dto);
    const id = await onUniqueViolation(
      () => this.dataSource.transaction(async (em) => {
        await this.checkName(em, project.id, null, columns);
        const id = await this.actions.insert(em, project.id, columns, principal.user.id);
        await this.log(em, principal, project, id, 'created', null, columns.name);
        return id;
      }),
      NAME_INDEX,
      () => nameTaken(null),
    );
    return this.describe(project, String(id));
  }

  /** The row is locked for the transaction: concurrent PATCHes apply one after the other. */
  async update(principal: UserPrincipal, project: ProjectEntity, rawId: string, dto: UpdateActionDto): Promise<ActionDto> {
    const id = parseId(rawId);
    if (id === null) throw ApiError.notFound();
    await onUniqueViolation(
      () => this.dataSource.transaction(async (em) => {
        const action = await this.actions.findForUpdate(em, project.id, id);
        if (!action) throw ApiError.notFound();
        const before = columnsOf(action);
        const after = columnsForUpdate(before, dto);
        const changes = changesBetween(SCOPE, activityView(before), activityView(after), ACTION_ACTIVITY_FIELDS);
        if (changes.length === 0) return;
        await this.checkName(em, project.id, id, after);
        await this.actions.update(em, project.id, id, after);
        await this.log(em, principal, project, id, after.deleted && !before.deleted ? 'deleted' : 'updated', changes, after.name);
      }),
      NAME_INDEX,
      () => nameTaken(null),
    );
    return this.describe(project, String(id));
  }

  async activityPage(project: ProjectEntity, rawId: string | null, request: ActivityPageRequest, url: URL): Promise<ActivityLogPageDto> {
    if (rawId !== null) await this.describe(project, rawId);
    return this.activity.page(project.id, SCOPE, rawId === null ? null : String(Number(rawId)), request, url);
  }

  /** One live action per name, as PostHog checks it (its message names the other action). */
  private async checkName(em: EntityManager, projectId: number, id: number | null, columns: ActionColumns): Promise<void> {
    if (columns.deleted) return;
    const other = await this.actions.liveIdNamed(em, projectId, columns.name, id);
    if (other !== null) throw nameTaken(other);
  }

  private log(em: EntityManager, principal: UserPrincipal, project: ProjectEntity, actionId: number, activity: string, changes: ActivityChange[] | null, name: string) {
    return this.activity.recordChange(em, project, principal.user.id, { scope: SCOPE, itemId: actionId, activity, changes, name });
  }
}
