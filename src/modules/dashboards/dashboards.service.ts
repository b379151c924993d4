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
import { DashboardTilesService } from '../dashboard-tiles/dashboard-tiles.service';
import type { ProjectEntity } from '../projects/project.entity';
import type { RefreshMode } from '../saved-insights/insight-refresh';
import { insightNode } from '../saved-insights/saved-insight-results.service';
import { SavedInsightsService } from '../saved-insights/saved-insights.service';
import { activityView, columnsForCreate, columnsForUpdate, columnsOf, DASHBOARD_ACTIVITY_FIELDS, DashboardColumns } from './dashboard-changes';
import { checkedDashboardFilters, DashboardFilters, withDashboardFilters } from './dashboard-filters';
import { dashboardBasicJson, dashboardJson, inGridOrder, tileJson } from './dashboard.presenter';
import type { DashboardEntity } from './dashboard.entity';
import { DashboardsRepository } from './dashboards.repository';
import type { CreateDashboardDto, DashboardDto, DashboardPageDto, DashboardTileDto, UpdateDashboardDto } from './dto/dashboard.dto';
import { parseTileChanges } from './tile-changes';

const SCOPE = 'Dashboard';
/** The query dashboard filters are tried on when saved: any trend takes every filter a dashboard may hold. */
const FILTER_PROBE = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] };

/** Dashboards: the management API, each read showing its tiles' insights with the dashboard's filters applied. */
@Injectable()
export class DashboardsService {
  constructor(
    private readonly dashboards: DashboardsRepository,
    private readonly tiles: DashboardTilesService,
    private readonly insights: SavedInsightsService,
    private readonly activity: ActivityLogsService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async page(project: ProjectEntity, search: string | undefined, page: PageRequest, url: URL): Promise<DashboardPageDto> {
    const { rows, count } = await this.dashboards.page(project.id, search, page.limit, page.offset);
    return buildPage(url, page, rows.map(dashboardBasicJson), count) as DashboardPageDto;
  }

  /** The dashboard with its tiles; `override` (a read's `filters_override`) goes over its stored filters for this read. */
  async describe(project: ProjectEntity, rawId: string, mode: RefreshMode, override: DashboardFilters = {}): Promise<DashboardDto> {
    const dashboard = await this.found(project.id, rawId);
    const filters = { ...dashboard.filters, ...override };
    const rows = inGridOrder(await this.tiles.ofDashboard(dashboard.id));
    const insightIds = rows.flatMap((tile) => (tile.insightId === null ? [] : [tile.insightId]));
    const insights = new Map((await this.insights.liveByIds(project.id, insightIds)).map((insight) => [insight.id, insight]));
    const placements = await this.tiles.placements(project.id, [...insights.keys()]);
    const tiles: DashboardTileDto[] = [];
    for (const tile of rows) {
      const insight = tile.insightId === null ? null : insights.get(tile.insightId);
      if (insight === undefined) continue; // its insight was deleted
      const node = insight ? insightNode(insight) : null;
      const shownNode = node && withDashboardFilters(node, { ...filters, ...tile.filtersOverrides });
      const shown = insight ? await this.insights.shown(project, insight, mode, { placement: placements.get(insight.id), node: shownNode, tolerant: true }) : null;
      tiles.push(tileJson(tile, tiles.length, shown));
    }
    await this.dashboards.touch(project.id, dashboard.id);
    return dashboardJson(dashboard, filters, tiles);
  }

  async create(principal: UserPrincipal, project: ProjectEntity, dto: CreateDashboardDto): Promise<DashboardDto> {
    const columns = columnsForCreate(dto);
    await this.checkFilters(project, columns.filters, 'filters');
    const template = dto.use_dashboard === undefined ? null : await this.found(project.id, String(dto.use_dashboard), 'use_dashboard');
    const id = await this.dataSource.transaction(async (em) => {
      const id = await this.dashboards.insert(em, project.id, columns, template ? 'duplicate' : 'default', principal.user.id);
      if (template) await this.copyTiles(em, principal, project, template.id, id, dto.duplicate_tiles === true);
      await this.log(em, principal, project, id, 'created', null, columns);
      return id;
    });
    return this.describe(project, String(id), 'force_cache');
  }

  /** The row is locked for the transaction; `deleted` takes the tiles (and with `delete_insights` their insights) along. */
  async update(principal: UserPrincipal, project: ProjectEntity, rawId: string, dto: UpdateDashboardDto, mode: RefreshMode): Promise<DashboardDto> {
    const id = (await this.found(project.id, rawId, 'id', true)).id;
    const tileChanges = parseTileChanges(dto.tiles);
    if (dto.filters !== undefined) await this.checkFilters(project, checkedDashboardFilters(dto.filters, 'filters'), 'filters');
    for (const change of tileChanges) if ('id' in change && change.display.filtersOverrides) await this.checkFilters(project, change.display.filtersOverrides, 'tiles');
    await this.dataSource.transaction(async (em) => {
      const dashboard = await this.dashboards.findForUpdate(em, project.id, id);
      if (!dashboard || (dashboard.deleted && dto.deleted !== false)) throw ApiError.notFound();
      const before = columnsOf(dashboard);
      const after = columnsForUpdate(before, dto);
      await this.dashboards.update(em, project.id, id, after);
      if (after.deleted !== before.deleted) await this.deleteOrRestoreTiles(em, project, id, after.deleted, dto.delete_insights === true);
      for (const change of tileChanges) {
        if ('text' in change) await this.tiles.addText(em, id, change.text, principal.user.id, change.layouts);
        else await this.tiles.changeDisplay(em, id, change.id, change.display);
      }
      const changes = changesBetween(SCOPE, activityView(before), activityView(after), DASHBOARD_ACTIVITY_FIELDS);
      if (changes.length > 0) await this.log(em, principal, project, id, after.deleted && !before.deleted ? 'deleted' : 'updated', changes, after);
    });
    const dashboard = await this.dashboards.find(project.id, id, true);
    if (dashboard?.deleted) return dashboardJson(dashboard, dashboard.filters, []);
    return this.describe(project, String(id), mode);
  }

  async activityPage(project: ProjectEntity, rawId: string | null, request: ActivityPageRequest, url: URL): Promise<ActivityLogPageDto> {
    const itemId = rawId === null ? null : String((await this.found(project.id, rawId)).id);
    return this.activity.page(project.id, SCOPE, itemId, request, url);
  }

  private async deleteOrRestoreTiles(em: EntityManager, project: ProjectEntity, id: number, deleted: boolean, deleteInsights: boolean): Promise<void> {
    if (deleted && deleteInsights) await this.insights.setDeleted(em, project.id, await this.tiles.insightsOnlyOn(em, id), true);
    await this.tiles.setDashboardDeleted(em, id, deleted);
    if (!deleted) {
      const insightIds = (await this.tiles.ofDashboard(id, em)).flatMap((tile) => (tile.insightId === null ? [] : [tile.insightId]));
      await this.insights.setDeleted(em, project.id, insightIds, false);
    }
  }

  /** Filters that no tile's query could run with (a malformed property filter, a bad date) are a 400 when saved. */
  private checkFilters(project: ProjectEntity, filters: DashboardFilters, field: string): Promise<void> {
    return this.insights.checkNode(project, () => withDashboardFilters(FILTER_PROBE, filters), field);
  }

  /** A duplicated dashboard shows the same insights, or copies of them with `duplicate_tiles`. */
  private async copyTiles(em: EntityManager, principal: UserPrincipal, project: ProjectEntity, fromId: number, toId: number, duplicateInsights: boolean): Promise<void> {
    const tiles = await this.tiles.ofDashboard(fromId, em);
    const insights = new Map((await this.insights.liveByIds(project.id, tiles.flatMap((t) => (t.insightId === null ? [] : [t.insightId])), em)).map((i) => [i.id, i]));
    for (const tile of tiles) {
      const insight = tile.insightId === null ? null : insights.get(tile.insightId);
      if (insight === undefined) continue;
      const insightId = insight === null ? null : duplicateInsights ? await this.insights.duplicate(em, principal, project, insight) : insight.id;
      await this.tiles.copyTile(em, tile, toId, insightId);
    }
  }

  private async found(projectId: number, rawId: string, attr = 'id', withDeleted = false): Promise<DashboardEntity> {
    const id = parseId(rawId);
    const dashboard = id === null ? null : await this.dashboards.find(projectId, id, withDeleted);
    if (dashboard) return dashboard;
    if (attr !== 'id') throw ApiError.validation(`Dashboard ${rawId} does not exist in this project (or was deleted).`, attr);
    throw ApiError.notFound();
  }

  private async log(em: EntityManager, principal: UserPrincipal, project: ProjectEntity, id: number, activity: string, changes: ActivityChange[] | null, columns: DashboardColumns): Promise<void> {
    await this.activity.recordChange(em, project, principal.user.id, { scope: SCOPE, itemId: id, activity, changes, name: columns.name });
  }
}
