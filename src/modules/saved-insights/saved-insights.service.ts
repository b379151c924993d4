import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, PageRequest } from '../../common/http/pagination';
import { parseId } from '../../common/validation/patterns';
import { ActivityChange, changesBetween } from '../activity-logs/activity-changes';
import { ActivityLogsService, ActivityPageRequest } from '../activity-logs/activity-logs.service';
import type { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import { DashboardTilesService, InsightPlacement } from '../dashboard-tiles/dashboard-tiles.service';
import type { ProjectEntity } from '../projects/project.entity';
import type { CreateSavedInsightDto, SavedInsightDto, SavedInsightPageDto, UpdateSavedInsightDto } from './dto/saved-insight.dto';
import type { RefreshMode } from './insight-refresh';
import { activityView, columnsForCreate, columnsForUpdate, columnsOf, INSIGHT_ACTIVITY_FIELDS, isMaterialChange, SavedInsightColumns } from './saved-insight-changes';
import { savedInsightBasicJson, savedInsightJson } from './saved-insight.presenter';
import { insightNode, SavedInsightResults } from './saved-insight-results.service';
import type { SavedInsightEntity } from './saved-insight.entity';
import { SavedInsightListFilters, SavedInsightsRepository } from './saved-insights.repository';
import { newShortId } from './short-id';

const SCOPE = 'Insight';
const SHORT_ID = /^[A-Za-z0-9]{1,64}$/;

/** Saved insights: the management API, each read showing the insight's result as its `refresh` mode allows. */
@Injectable()
export class SavedInsightsService {
  constructor(
    private readonly insights: SavedInsightsRepository,
    private readonly results: SavedInsightResults,
    private readonly tiles: DashboardTilesService,
    private readonly activity: ActivityLogsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async page(project: ProjectEntity, filters: SavedInsightListFilters, page: PageRequest, url: URL, show: { basic: boolean; mode: RefreshMode }): Promise<SavedInsightPageDto> {
    const ids = filters.dashboards ? await this.tiles.insightsOnAll(filters.dashboards) : undefined;
    const { rows, count } = await this.insights.page(project.id, { ...filters, ids }, page.limit, page.offset);
    const placements = await this.tiles.placements(project.id, rows.map((insight) => insight.id));
    const placementOf = (insight: SavedInsightEntity) => placements.get(insight.id) ?? { dashboards: [], tiles: [] };
    const results = [];
    for (const insight of rows) {
      results.push(show.basic ? savedInsightBasicJson(insight, placementOf(insight), null) : await this.shown(project, insight, show.mode, { placement: placementOf(insight), tolerant: true }));
    }
    return buildPage(url, page, results, count) as SavedInsightPageDto;
  }

  /** By id or short id (digits are an id first, as PostHog reads them); a deleted insight is not found. */
  async describe(project: ProjectEntity, rawId: string, mode: RefreshMode): Promise<SavedInsightDto> {
    return this.shown(project, await this.found(project.id, rawId), mode);
  }

  async create(principal: UserPrincipal, project: ProjectEntity, dto: CreateSavedInsightDto, mode: RefreshMode): Promise<SavedInsightDto> {
    const columns = columnsForCreate(dto);
    await this.results.check(project, columns);
    const shortId = newShortId();
    const id = await this.dataSource.transaction(async (em) => {
      const id = await this.insights.insert(em, project.id, shortId, columns, principal.user.id);
      if (dto.dashboards !== undefined) await this.tiles.placeInsight(em, project.id, id, dto.dashboards);
      await this.log(em, principal, project, { id, shortId }, 'created', null, columns);
      return id;
    });
    return this.shown(project, await this.existing(project.id, id), mode);
  }

  /** The row is locked for the transaction: concurrent PATCHes apply one after the other. `deleted: false` restores. */
  async update(principal: UserPrincipal, project: ProjectEntity, rawId: string, dto: UpdateSavedInsightDto, mode: RefreshMode): Promise<SavedInsightDto> {
    const current = await this.found(project.id, rawId, true);
    const id = current.id;
    // A new question is parsed before the row is locked: parsing may wait for the analytics copy.
    if (dto.query !== undefined || dto.filters !== undefined) await this.results.check(project, columnsForUpdate(columnsOf(current), dto));
    const dashboardsBefore = dto.dashboards === undefined ? null : (await this.tiles.placement(project.id, id)).dashboards;
    await this.dataSource.transaction(async (em) => {
      const insight = await this.insights.findForUpdate(em, project.id, id);
      if (!insight) throw ApiError.notFound();
      if (insight.deleted && dto.deleted !== false) throw ApiError.notFound();
      const before = columnsOf(insight);
      const after = columnsForUpdate(before, dto);
      const changes = [...changesBetween(SCOPE, activityView(before), activityView(after), INSIGHT_ACTIVITY_FIELDS), ...dashboardsChange(dashboardsBefore, dto.dashboards)];
      await this.insights.update(em, project.id, id, after, isMaterialChange(before, after) ? principal.user.id : null);
      if (dto.dashboards !== undefined) await this.tiles.placeInsight(em, project.id, id, dto.dashboards);
      if (changes.length > 0) await this.log(em, principal, project, { id, shortId: insight.shortId }, activityOf(before, after), changes, after);
    });
    return this.shown(project, await this.existing(project.id, id), mode);
  }

  /** The live insights of the project among these ids (a dashboard's tiles), inside a transaction when given one. */
  liveByIds(projectId: number, ids: number[], em?: EntityManager): Promise<SavedInsightEntity[]> {
    return this.insights.liveByIds(projectId, ids, em);
  }

  /** Soft-deletes or restores insights with the dashboard they sat on (inside its transaction). */
  setDeleted(em: EntityManager, projectId: number, ids: number[], deleted: boolean): Promise<void> {
    return ids.length ? this.insights.setDeleted(em, projectId, ids, deleted) : Promise.resolve();
  }

  /** A copy of an insight under a new short id, for a duplicated dashboard (inside its transaction). */
  async duplicate(em: EntityManager, principal: UserPrincipal, project: ProjectEntity, insight: SavedInsightEntity): Promise<number> {
    // PostHog names a copy after its original.
    const columns = { ...columnsOf(insight), name: insight.name === null ? null : `${insight.name} (Copy)` };
    const shortId = newShortId();
    const id = await this.insights.insert(em, project.id, shortId, columns, principal.user.id);
    await this.log(em, principal, project, { id, shortId }, 'created', null, columns);
    return id;
  }

  async activityPage(project: ProjectEntity, rawId: string | null, request: ActivityPageRequest, url: URL): Promise<ActivityLogPageDto> {
    const itemId = rawId === null ? null : String((await this.found(project.id, rawId)).id);
    return this.activity.page(project.id, SCOPE, itemId, request, url);
  }

  /**
   * An insight as the API shows it, its result computed as `mode` allows: of its own question, or of `node` (a
   * dashboard's filters on it); in a list or on a dashboard (`tolerant`) a failed computation is shown, not thrown.
   */
  async shown(project: ProjectEntity, insight: SavedInsightEntity, mode: RefreshMode, show: { placement?: InsightPlacement; node?: Record<string, unknown> | null; tolerant?: boolean } = {}): Promise<SavedInsightDto> {
    const placement = show.placement ?? (await this.tiles.placement(project.id, insight.id));
    const node = show.node === undefined ? insightNode(insight) : show.node;
    return savedInsightJson(insight, placement, await this.results.resultOf(project, node, mode, show.tolerant ?? false), project.timezone);
  }

  /** Refuses dashboard filters (or a tile's overrides) that no query could run with, as a 400 on `field`. */
  checkNode(project: ProjectEntity, make: () => Record<string, unknown> | null, field: string): Promise<void> {
    return this.results.checkNode(project, make, field);
  }

  private async found(projectId: number, rawId: string, withDeleted = false): Promise<SavedInsightEntity> {
    const id = parseId(rawId);
    const insight = (id !== null ? await this.insights.find(projectId, { id }, withDeleted) : null)
      ?? (SHORT_ID.test(rawId) ? await this.insights.find(projectId, { shortId: rawId }, withDeleted) : null);
    if (!insight) throw ApiError.notFound();
    return insight;
  }

  private async existing(projectId: number, id: number): Promise<SavedInsightEntity> {
    const insight = await this.insights.find(projectId, { id }, true);
    if (!insight) throw ApiError.notFound();
    return insight;
  }

  /** PostHog logs only insights with a name or a derived name. */
  private async log(em: EntityManager, principal: UserPrincipal, project: ProjectEntity, item: { id: number; shortId: string }, activity: string, changes: ActivityChange[] | null, columns: SavedInsightColumns): Promise<void> {
    const name = columns.name ?? columns.derivedName;
    if (name === null || name === '') return;
    await this.activity.recordChange(em, project, principal.user.id, { scope: SCOPE, itemId: item.id, activity, changes, name, shortId: item.shortId });
  }
}

/** Where the insight sits, as PostHog logs it beside the insight's own fields: the dashboards before and after. */
function dashboardsChange(before: number[] | null, after: number[] | undefined): ActivityChange[] {
  if (before === null || after === undefined) return [];
  const [was, now] = [[...before].sort((a, b) => a - b), [...new Set(after)].sort((a, b) => a - b)];
  return JSON.stringify(was) === JSON.stringify(now) ? [] : [{ type: SCOPE, action: 'changed', field: 'dashboards', before: was, after: now }];
}

function activityOf(before: SavedInsightColumns, after: SavedInsightColumns): string {
  if (after.deleted && !before.deleted) return 'deleted';
  if (!after.deleted && before.deleted) return 'restored';
  return 'updated';
}
