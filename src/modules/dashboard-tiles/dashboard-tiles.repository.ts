import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A tile as stored: an insight's or a text's place on a dashboard. */
export interface TileRow {
  id: number;
  dashboardId: number;
  insightId: number | null;
  textBody: string | null;
  textCreatedById: number | null;
  layouts: Record<string, unknown>;
  color: string | null;
  filtersOverrides: Record<string, unknown>;
  showDescription: boolean | null;
  transparentBackground: boolean | null;
  deleted: boolean;
  lastModifiedAt: Date;
}

/** What a tile update may change (PostHog lets a dashboard PATCH change only how a tile is shown). */
export interface TileDisplay {
  layouts?: Record<string, unknown>;
  color?: string | null;
  filtersOverrides?: Record<string, unknown>;
  showDescription?: boolean | null;
  transparentBackground?: boolean | null;
  deleted?: boolean;
  textBody?: string;
}

const TILE_COLUMNS = `t.id, t.dashboard_id AS "dashboardId", t.insight_id AS "insightId", t.text_body AS "textBody", t.text_created_by_id AS "textCreatedById",
  t.layouts, t.color, t.filters_overrides AS "filtersOverrides", t.show_description AS "showDescription", t.transparent_background AS "transparentBackground",
  t.deleted, t.last_modified_at AS "lastModifiedAt"`;

/** The dashboard_tile table: which insights sit on which dashboards, and how each tile is shown. */
@Injectable()
export class DashboardTilesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every tile of these insights in the project, deleted ones too. */
  async ofInsights(projectId: number, insightIds: number[]): Promise<TileRow[]> {
    if (insightIds.length === 0) return [];
    return this.dataSource.query(
      `SELECT ${TILE_COLUMNS} FROM dashboard_tile t JOIN insight i ON i.id = t.insight_id WHERE i.project_id = $1 AND t.insight_id = ANY($2::int[]) ORDER BY t.id`,
      [projectId, insightIds],
    );
  }

  /** The insights with a live tile on every one of these dashboards. */
  async insightsOnAll(dashboardIds: number[]): Promise<number[]> {
    const rows: Array<{ insight_id: number }> = await this.dataSource.query(
      `SELECT insight_id FROM dashboard_tile WHERE dashboard_id = ANY($1::int[]) AND insight_id IS NOT NULL AND NOT deleted
        GROUP BY insight_id HAVING count(DISTINCT dashboard_id) = cardinality($1::int[])`,
      [dashboardIds],
    );
    return rows.map((row) => row.insight_id);
  }

  /** A dashboard's tiles in id order (deleted ones only when asked). */
  ofDashboard(em: EntityManager | null, dashboardId: number, withDeleted = false): Promise<TileRow[]> {
    return (em ?? this.dataSource.manager).query(`SELECT ${TILE_COLUMNS} FROM dashboard_tile t WHERE t.dashboard_id = $1 ${withDeleted ? '' : 'AND NOT t.deleted'} ORDER BY t.id`, [dashboardId]);
  }

  /** Of these ids, the project's live dashboards. */
  async liveDashboardIds(em: EntityManager, projectId: number, ids: number[]): Promise<number[]> {
    // FOR SHARE: a dashboard being deleted meanwhile waits for this placement, then takes its tile along.
    const rows: Array<{ id: number }> = await em.query('SELECT id FROM dashboard WHERE project_id = $1 AND id = ANY($2::int[]) AND NOT deleted FOR SHARE', [projectId, ids]);
    return rows.map((row) => row.id);
  }

  /** Puts an insight on these dashboards (a tile it had there comes back) and takes it off every other. */
  async placeInsight(em: EntityManager, insightId: number, dashboardIds: number[]): Promise<void> {
    await em.query('UPDATE dashboard_tile SET deleted = true, last_modified_at = now() WHERE insight_id = $1 AND NOT deleted AND NOT dashboard_id = ANY($2::int[])', [insightId, dashboardIds]);
    await em.query(
      `INSERT INTO dashboard_tile (dashboard_id, insight_id) SELECT unnest($2::int[]), $1
       ON CONFLICT (dashboard_id, insight_id) WHERE insight_id IS NOT NULL DO UPDATE SET deleted = false, last_modified_at = now() WHERE dashboard_tile.deleted`,
      [insightId, dashboardIds],
    );
  }

  async insertText(em: EntityManager, dashboardId: number, body: string, userId: number, layouts: Record<string, unknown>): Promise<void> {
    await em.query('INSERT INTO dashboard_tile (dashboard_id, text_body, text_created_by_id, layouts) VALUES ($1, $2, $3, $4)', [dashboardId, body, userId, JSON.stringify(layouts)]);
  }

  /** Copies a tile to another dashboard, onto `insightId` (the same insight, or its copy). */
  async copyTile(em: EntityManager, tile: TileRow, dashboardId: number, insightId: number | null): Promise<void> {
    await em.query(
      `INSERT INTO dashboard_tile (dashboard_id, insight_id, text_body, text_created_by_id, layouts, color, filters_overrides, show_description, transparent_background)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [dashboardId, insightId, tile.textBody, tile.textCreatedById, JSON.stringify(tile.layouts), tile.color, JSON.stringify(tile.filtersOverrides), tile.showDescription, tile.transparentBackground],
    );
  }

  async updateDisplay(em: EntityManager, dashboardId: number, tileId: number, change: TileDisplay): Promise<void> {
    await em.query(
      `UPDATE dashboard_tile SET layouts = coalesce($3, layouts), color = CASE WHEN $4 THEN $5 ELSE color END, filters_overrides = coalesce($6, filters_overrides),
              show_description = CASE WHEN $7 THEN $8 ELSE show_description END, transparent_background = CASE WHEN $9 THEN $10 ELSE transparent_background END,
              deleted = coalesce($11, deleted), text_body = CASE WHEN text_body IS NULL THEN NULL ELSE coalesce($12, text_body) END, last_modified_at = now()
        WHERE dashboard_id = $1 AND id = $2`,
      [dashboardId, tileId, change.layouts === undefined ? null : JSON.stringify(change.layouts), change.color !== undefined, change.color ?? null,
        change.filtersOverrides === undefined ? null : JSON.stringify(change.filtersOverrides), change.showDescription !== undefined, change.showDescription ?? null,
        change.transparentBackground !== undefined, change.transparentBackground ?? null, change.deleted ?? null, change.textBody ?? null],
    );
  }

  /** Soft-deletes (or restores) every tile of a dashboard, as deleting (or restoring) the dashboard does. */
  async setDashboardTilesDeleted(em: EntityManager, dashboardId: number, deleted: boolean): Promise<void> {
    await em.query('UPDATE dashboard_tile SET deleted = $2, last_modified_at = now() WHERE dashboard_id = $1', [dashboardId, deleted]);
  }

  /** The insights of a dashboard that sit on no other live dashboard: what `delete_insights` deletes with it. */
  async insightsOnlyOn(em: EntityManager, dashboardId: number): Promise<number[]> {
    const rows: Array<{ insight_id: number }> = await em.query(
      `SELECT t.insight_id FROM dashboard_tile t WHERE t.dashboard_id = $1 AND t.insight_id IS NOT NULL AND NOT t.deleted
          AND NOT EXISTS (SELECT 1 FROM dashboard_tile o JOIN dashboard d ON d.id = o.dashboard_id
                           WHERE o.insight_id = t.insight_id AND o.dashboard_id <> $1 AND NOT o.deleted AND NOT d.deleted)`,
      [dashboardId],
    );
    return rows.map((row) => row.insight_id);
  }
}
