import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { FeatureFlagEntity } from './feature-flag.entity';
import { likePattern } from '../../database/like-pattern';

/** The list filters of PostHog's API-24 `_filter_request` (posthog/api/feature_flag.py). */
export interface FlagListFilters {
  active?: boolean;
  createdById?: number;
  search?: string;
  type?: 'boolean' | 'multivariant' | 'experiment' | 'remote_config';
}

/** The columns a create or update writes. */
export interface FlagColumns {
  key: string;
  name: string;
  filters: Record<string, unknown>;
  deleted: boolean;
  active: boolean;
  ensureExperienceContinuity: boolean;
  rollbackConditions: unknown;
  performedRollback: boolean | null;
  tags: string[];
  createdAt: Date;
}

const VARIANT_COUNT = `(CASE WHEN jsonb_typeof(f.filters->'multivariate'->'variants') = 'array'
  THEN jsonb_array_length(f.filters->'multivariate'->'variants') ELSE 0 END)`;

/** $2..$11 of the insert and update statements; JSON columns are serialised here (pg would turn arrays into SQL arrays). */
function columnParams(c: FlagColumns): unknown[] {
  const rollback = c.rollbackConditions === null || c.rollbackConditions === undefined ? null : JSON.stringify(c.rollbackConditions);
  return [c.key, c.name, JSON.stringify(c.filters), c.deleted, c.active, c.ensureExperienceContinuity, rollback, c.performedRollback, c.tags, c.createdAt];
}

@Injectable()
export class FeatureFlagsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private withUsers(em: EntityManager = this.dataSource.manager): SelectQueryBuilder<FeatureFlagEntity> {
    return em
      .getRepository(FeatureFlagEntity)
      .createQueryBuilder('f')
      .leftJoinAndSelect('f.createdBy', 'createdBy')
      .leftJoinAndSelect('f.lastModifiedBy', 'lastModifiedBy');
  }

  /** Live flags, newest first. */
  async page(projectId: number, filters: FlagListFilters, limit: number, offset: number): Promise<{ rows: FeatureFlagEntity[]; count: number }> {
    const query = this.withUsers().where('f.project_id = :projectId AND NOT f.deleted', { projectId });
    if (filters.active !== undefined) query.andWhere('f.active = :active', { active: filters.active });
    if (filters.createdById !== undefined) query.andWhere('f.created_by_id = :createdById', { createdById: filters.createdById });
    if (filters.search) query.andWhere('(f.key ILIKE :search OR f.name ILIKE :search)', { search: likePattern(filters.search) });
    if (filters.type === 'boolean') query.andWhere(`${VARIANT_COUNT} = 0`);
    if (filters.type === 'multivariant') query.andWhere(`${VARIANT_COUNT} > 0`);
    // No experiments or remote-config flags exist here, so those types match nothing.
    if (filters.type === 'experiment' || filters.type === 'remote_config') query.andWhere('false');
    query.orderBy('f.createdAt', 'DESC').addOrderBy('f.id', 'DESC').take(limit).skip(offset);
    const [rows, count] = await query.getManyAndCount();
    return { rows, count };
  }

  /** Deleted flags too: PostHog still serves them by id. */
  find(projectId: number, id: number): Promise<FeatureFlagEntity | null> {
    return this.withUsers().where('f.project_id = :projectId AND f.id = :id', { projectId, id }).getOne();
  }

  /**
   * The flag, row-locked for the rest of the transaction (`FOR UPDATE OF f`: the joined users stay
   * unlocked), so concurrent PATCHes of one flag apply one after another.
   */
  findForUpdate(em: EntityManager, projectId: number, id: number): Promise<FeatureFlagEntity | null> {
    return this.withUsers(em)
      .where('f.project_id = :projectId AND f.id = :id', { projectId, id })
      .setLock('pessimistic_write', undefined, ['f'])
      .getOne();
  }

  async liveKeyTaken(em: EntityManager, projectId: number, key: string, exceptId: number | null): Promise<boolean> {
    const rows = await em.query(
      `SELECT 1 FROM feature_flag WHERE project_id = $1 AND key = $2 AND NOT deleted AND id IS DISTINCT FROM $3 LIMIT 1`,
      [projectId, key, exceptId],
    );
    return rows.length > 0;
  }

  async insert(em: EntityManager, projectId: number, c: FlagColumns, userId: number): Promise<number> {
    const [row]: Array<{ id: number }> = await em.query(
      `INSERT INTO feature_flag (project_id, key, name, filters, deleted, active, ensure_experience_continuity,
                                 rollback_conditions, performed_rollback, tags, created_at, created_by_id, last_modified_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING id`,
      [projectId, ...columnParams(c), userId],
    );
    return row.id;
  }

  async update(em: EntityManager, projectId: number, id: number, c: FlagColumns, userId: number): Promise<void> {
    await em.query(
      `UPDATE feature_flag
          SET key = $2, name = $3, filters = $4, deleted = $5, active = $6, ensure_experience_continuity = $7,
              rollback_conditions = $8, performed_rollback = $9, tags = $10, created_at = $11,
              last_modified_by_id = $12, updated_at = now(), version = version + 1
        WHERE project_id = $1 AND id = $13`,
      [projectId, ...columnParams(c), userId, id],
    );
  }

  /** Live flags' ids, keys and stored filters: the graph flag dependencies are checked against. */
  /** Every live flag with what evaluation reads, newest first (my_flags and local evaluation keep this order). */
  liveForEvaluation(projectId: number): Promise<FeatureFlagEntity[]> {
    return this.dataSource.getRepository(FeatureFlagEntity).find({
      where: { projectId, deleted: false },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  async liveFlagFilters(em: EntityManager, projectId: number): Promise<Array<{ id: number; key: string; filters: Record<string, unknown> }>> {
    return em.query(`SELECT id, key, filters FROM feature_flag WHERE project_id = $1 AND NOT deleted`, [projectId]);
  }
}
