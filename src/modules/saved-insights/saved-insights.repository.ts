import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { likePattern } from '../../database/like-pattern';
import type { SavedInsightColumns } from './saved-insight-changes';
import { SavedInsightEntity } from './saved-insight.entity';

/** What the list narrows to (PostHog's insight list filters). */
export interface SavedInsightListFilters {
  saved?: boolean;
  favorited?: boolean;
  shortId?: string;
  search?: string;
  createdBy?: number[];
  /** `dashboards`: on every one of these (the ids of the insights that are, resolved by the service). */
  dashboards?: number[];
  ids?: number[];
  /** `TRENDS` … `LIFECYCLE`, with the query node kind that asks the same. */
  insight?: { legacy: string; kind: string };
  /** Sort keys as `[column, 'ASC' | 'DESC']`. */
  order: Array<[string, 'ASC' | 'DESC']>;
}

/** A computed result as the cache keeps it. */
export interface StoredResult {
  result: unknown;
  lastRefresh: Date;
}

@Injectable()
export class SavedInsightsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private withUsers(em: EntityManager = this.dataSource.manager): SelectQueryBuilder<SavedInsightEntity> {
    return em.getRepository(SavedInsightEntity).createQueryBuilder('i').leftJoinAndSelect('i.createdBy', 'createdBy').leftJoinAndSelect('i.lastModifiedBy', 'lastModifiedBy');
  }

  async page(projectId: number, filters: SavedInsightListFilters, limit: number, offset: number): Promise<{ rows: SavedInsightEntity[]; count: number }> {
    const query = this.withUsers().where('i.project_id = :projectId AND NOT i.deleted', { projectId });
    if (filters.saved !== undefined) query.andWhere('i.saved = :saved', { saved: filters.saved });
    if (filters.favorited) query.andWhere('i.favorited');
    if (filters.shortId !== undefined) query.andWhere('i.short_id = :shortId', { shortId: filters.shortId });
    if (filters.createdBy) query.andWhere('i.created_by_id = ANY(:createdBy)', { createdBy: filters.createdBy });
    if (filters.ids) query.andWhere('i.id = ANY(:ids)', { ids: filters.ids });
    if (filters.search !== undefined) {
      const pattern = likePattern(filters.search, '%', '%');
      query.andWhere(new Brackets((q) => q.where('i.name ILIKE :pattern OR i.derived_name ILIKE :pattern OR i.description ILIKE :pattern', { pattern })
        .orWhere('EXISTS (SELECT 1 FROM unnest(i.tags) AS tag WHERE tag ILIKE :pattern)', { pattern })));
    }
    if (filters.insight) {
      // A legacy filter without `insight` is a trend, as PostHog reads it.
      query.andWhere(new Brackets((q) => q.where(`upper(coalesce(i.filters ->> 'insight', CASE WHEN i.query IS NULL AND i.filters <> '{}' THEN 'TRENDS' END)) = :legacy`, { legacy: filters.insight!.legacy })
        .orWhere(`i.query -> 'source' ->> 'kind' = :kind`, { kind: filters.insight!.kind })));
    }
    for (const [column, direction] of filters.order) query.addOrderBy(column, direction, 'NULLS LAST');
    const [rows, count] = await query.addOrderBy('i.id', 'DESC').take(limit).skip(offset).getManyAndCount();
    return { rows, count };
  }

  /** An insight by id or short id; a deleted one only when asked for (PostHog restores it through PATCH). */
  find(projectId: number, ref: { id: number } | { shortId: string }, withDeleted = false): Promise<SavedInsightEntity | null> {
    const query = this.withUsers().where('i.project_id = :projectId', { projectId });
    if ('id' in ref) query.andWhere('i.id = :id', { id: ref.id });
    else query.andWhere('i.short_id = :shortId', { shortId: ref.shortId });
    if (!withDeleted) query.andWhere('NOT i.deleted');
    return query.getOne();
  }

  /** The live insights of the project among these ids. */
  liveByIds(projectId: number, ids: number[], em?: EntityManager): Promise<SavedInsightEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.withUsers(em).where('i.project_id = :projectId AND i.id IN (:...ids) AND NOT i.deleted', { projectId, ids }).getMany();
  }

  /** Soft-deletes or restores insights together, as deleting or restoring their dashboard does. */
  async setDeleted(em: EntityManager, projectId: number, ids: number[], deleted: boolean): Promise<void> {
    await em.query('UPDATE insight SET deleted = $3, updated_at = now() WHERE project_id = $1 AND id = ANY($2::int[])', [projectId, ids, deleted]);
  }

  findForUpdate(em: EntityManager, projectId: number, id: number): Promise<SavedInsightEntity | null> {
    return this.withUsers(em).where('i.project_id = :projectId AND i.id = :id', { projectId, id }).setLock('pessimistic_write', undefined, ['i']).getOne();
  }

  async insert(em: EntityManager, projectId: number, shortId: string, columns: SavedInsightColumns, userId: number): Promise<number> {
    const rows: Array<{ id: number }> = await em.query(
      `INSERT INTO insight (project_id, short_id, name, derived_name, description, query, filters, favorited, saved, deleted, "order", tags, created_by_id, last_modified_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING id`,
      [projectId, shortId, columns.name, columns.derivedName, columns.description, columns.query === null ? null : JSON.stringify(columns.query), JSON.stringify(columns.filters),
        columns.favorited, columns.saved, columns.deleted, columns.order, columns.tags, userId],
    );
    return rows[0].id;
  }

  /** Writes the columns; `modifiedBy` (a material change) also stamps who changed it and when. */
  async update(em: EntityManager, projectId: number, id: number, columns: SavedInsightColumns, modifiedBy: number | null): Promise<void> {
    await em.query(
      `UPDATE insight SET name = $3, derived_name = $4, description = $5, query = $6, filters = $7, favorited = $8, saved = $9, deleted = $10, "order" = $11, tags = $12,
              updated_at = now(), last_modified_at = CASE WHEN $13::int IS NULL THEN last_modified_at ELSE now() END,
              last_modified_by_id = coalesce($13::int, last_modified_by_id)
        WHERE project_id = $1 AND id = $2`,
      [projectId, id, columns.name, columns.derivedName, columns.description, columns.query === null ? null : JSON.stringify(columns.query), JSON.stringify(columns.filters),
        columns.favorited, columns.saved, columns.deleted, columns.order, columns.tags, modifiedBy],
    );
  }

  async storedResult(projectId: number, key: string): Promise<StoredResult | null> {
    const rows: Array<{ result: unknown; last_refresh: Date }> = await this.dataSource.query('SELECT result, last_refresh FROM insight_result WHERE project_id = $1 AND cache_key = $2', [projectId, key]);
    return rows.length ? { result: rows[0].result, lastRefresh: rows[0].last_refresh } : null;
  }

  /** Keeps a result, and drops the project's results nobody computed for a week (questions no longer asked). */
  async storeResult(projectId: number, key: string, stored: StoredResult): Promise<void> {
    await this.dataSource.query(`DELETE FROM insight_result WHERE project_id = $1 AND last_refresh < now() - interval '7 days'`, [projectId]);
    await this.dataSource.query(
      `INSERT INTO insight_result (project_id, cache_key, result, last_refresh) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, cache_key) DO UPDATE SET result = excluded.result, last_refresh = excluded.last_refresh`,
      [projectId, key, JSON.stringify(stored.result), stored.lastRefresh],
    );
  }
}
