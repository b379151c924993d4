import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { likePattern } from '../../database/like-pattern';
import type { DashboardColumns } from './dashboard-changes';
import { DashboardEntity } from './dashboard.entity';

@Injectable()
export class DashboardsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private withCreator(em: EntityManager = this.dataSource.manager): SelectQueryBuilder<DashboardEntity> {
    return em.getRepository(DashboardEntity).createQueryBuilder('d').leftJoinAndSelect('d.createdBy', 'createdBy');
  }

  /** Live dashboards, pinned first, then by name (PostHog's order). */
  async page(projectId: number, search: string | undefined, limit: number, offset: number): Promise<{ rows: DashboardEntity[]; count: number }> {
    const query = this.withCreator().where('d.project_id = :projectId AND NOT d.deleted', { projectId });
    if (search !== undefined) query.andWhere('(d.name ILIKE :pattern OR d.description ILIKE :pattern OR EXISTS (SELECT 1 FROM unnest(d.tags) tag WHERE tag ILIKE :pattern))', { pattern: likePattern(search) });
    const [rows, count] = await query.orderBy('d.pinned', 'DESC').addOrderBy('d.name', 'ASC', 'NULLS LAST').addOrderBy('d.id', 'ASC').take(limit).skip(offset).getManyAndCount();
    return { rows, count };
  }

  find(projectId: number, id: number, withDeleted = false): Promise<DashboardEntity | null> {
    const query = this.withCreator().where('d.project_id = :projectId AND d.id = :id', { projectId, id });
    if (!withDeleted) query.andWhere('NOT d.deleted');
    return query.getOne();
  }

  findForUpdate(em: EntityManager, projectId: number, id: number): Promise<DashboardEntity | null> {
    return this.withCreator(em).where('d.project_id = :projectId AND d.id = :id', { projectId, id }).setLock('pessimistic_write', undefined, ['d']).getOne();
  }

  async insert(em: EntityManager, projectId: number, columns: DashboardColumns, creationMode: string, userId: number): Promise<number> {
    const rows: Array<{ id: number }> = await em.query(
      `INSERT INTO dashboard (project_id, name, description, pinned, filters, tags, creation_mode, created_by_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      [projectId, columns.name, columns.description, columns.pinned, JSON.stringify(columns.filters), columns.tags, creationMode, userId],
    );
    return rows[0].id;
  }

  async update(em: EntityManager, projectId: number, id: number, columns: DashboardColumns): Promise<void> {
    await em.query(
      'UPDATE dashboard SET name = $3, description = $4, pinned = $5, filters = $6, tags = $7, deleted = $8 WHERE project_id = $1 AND id = $2',
      [projectId, id, columns.name, columns.description, columns.pinned, JSON.stringify(columns.filters), columns.tags, columns.deleted],
    );
  }

  /** A read of the dashboard stamps when it was last looked at, as PostHog's retrieve does. */
  async touch(projectId: number, id: number): Promise<void> {
    await this.dataSource.query('UPDATE dashboard SET last_accessed_at = now() WHERE project_id = $1 AND id = $2', [projectId, id]);
  }
}
