import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { DashboardTilesRepository, TileDisplay, TileRow } from './dashboard-tiles.repository';

/** Where an insight sits: the live dashboards it is on, and every tile it has had (PostHog's `dashboard_tiles`). */
export interface InsightPlacement {
  dashboards: number[];
  tiles: Array<{ id: number; dashboard_id: number; deleted: boolean }>;
}

const NOWHERE: InsightPlacement = { dashboards: [], tiles: [] };

/**
 * Tiles: the link between saved insights and dashboards, and how each is shown. Saved insights read and write where
 * an insight sits (PostHog's writable `dashboards` field); dashboards read and arrange their tiles. A dashboard's
 * deletion soft-deletes its tiles, so a live tile is always on a live dashboard.
 */
@Injectable()
export class DashboardTilesService {
  constructor(private readonly tiles: DashboardTilesRepository) {}

  async placements(projectId: number, insightIds: number[]): Promise<Map<number, InsightPlacement>> {
    const placements = new Map<number, InsightPlacement>();
    for (const tile of await this.tiles.ofInsights(projectId, insightIds)) {
      const placement = placements.get(tile.insightId!) ?? { dashboards: [], tiles: [] };
      placement.tiles.push({ id: tile.id, dashboard_id: tile.dashboardId, deleted: tile.deleted });
      if (!tile.deleted) placement.dashboards.push(tile.dashboardId);
      placements.set(tile.insightId!, placement);
    }
    return placements;
  }

  async placement(projectId: number, insightId: number): Promise<InsightPlacement> {
    return (await this.placements(projectId, [insightId])).get(insightId) ?? NOWHERE;
  }

  /** The insights on every one of these dashboards (the insight list's `dashboards` filter). */
  insightsOnAll(dashboardIds: number[]): Promise<number[]> {
    return this.tiles.insightsOnAll([...new Set(dashboardIds)]);
  }

  /** Puts an insight on exactly these dashboards of the project; one that is not a live dashboard of it is a 400. */
  async placeInsight(em: EntityManager, projectId: number, insightId: number, dashboardIds: number[]): Promise<void> {
    const wanted = [...new Set(dashboardIds)];
    const live = new Set(await this.tiles.liveDashboardIds(em, projectId, wanted));
    const missing = wanted.find((id) => !live.has(id));
    if (missing !== undefined) throw ApiError.validation(`Dashboard ${missing} does not exist in this project (or was deleted): give ids from /api/projects/:id/dashboards/.`, 'dashboards');
    await this.tiles.placeInsight(em, insightId, wanted);
  }

  ofDashboard(dashboardId: number, em: EntityManager | null = null, withDeleted = false): Promise<TileRow[]> {
    return this.tiles.ofDashboard(em, dashboardId, withDeleted);
  }

  addText(em: EntityManager, dashboardId: number, body: string, userId: number, layouts: Record<string, unknown> = {}): Promise<void> {
    return this.tiles.insertText(em, dashboardId, body, userId, layouts);
  }

  copyTile(em: EntityManager, tile: TileRow, dashboardId: number, insightId: number | null): Promise<void> {
    return this.tiles.copyTile(em, tile, dashboardId, insightId);
  }

  changeDisplay(em: EntityManager, dashboardId: number, tileId: number, change: TileDisplay): Promise<void> {
    return this.tiles.updateDisplay(em, dashboardId, tileId, change);
  }

  setDashboardDeleted(em: EntityManager, dashboardId: number, deleted: boolean): Promise<void> {
    return this.tiles.setDashboardTilesDeleted(em, dashboardId, deleted);
  }

  insightsOnlyOn(em: EntityManager, dashboardId: number): Promise<number[]> {
    return this.tiles.insightsOnlyOn(em, dashboardId);
  }
}
