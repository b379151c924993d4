import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, SelectQueryBuilder } from 'typeorm';
import type { CohortDefinition } from '../../kernel/cohort-match';
import type { CohortColumns } from './cohort-changes';
import { CohortEntity } from './cohort.entity';
import type { CohortNode, FlagUsage } from './cohort-graph';
import { likePattern } from '../../database/like-pattern';

/** PostHog's list filters: `type=static|dynamic`, `created_by_id`, `search` (in the name). */
export interface CohortListFilters {
  type?: 'static' | 'dynamic';
  createdById?: number;
  search?: string;
}

@Injectable()
export class CohortsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private withCreator(em: EntityManager = this.dataSource.manager): SelectQueryBuilder<CohortEntity> {
    return em.getRepository(CohortEntity).createQueryBuilder('c').leftJoinAndSelect('c.createdBy', 'createdBy');
  }

  /** Live cohorts, newest first. */
  async page(projectId: number, filters: CohortListFilters, limit: number, offset: number): Promise<{ rows: CohortEntity[]; count: number }> {
    const query = this.withCreator().where('c.project_id = :projectId AND NOT c.deleted', { projectId });
    if (filters.type !== undefined) query.andWhere('c.is_static = :isStatic', { isStatic: filters.type === 'static' });
    if (filters.createdById !== undefined) query.andWhere('c.created_by_id = :createdById', { createdById: filters.createdById });
    if (filters.search) query.andWhere('c.name ILIKE :search', { search: likePattern(filters.search) });
    query.orderBy('c.createdAt', 'DESC').addOrderBy('c.id', 'DESC').take(limit).skip(offset);
    const [rows, count] = await query.getManyAndCount();
    return { rows, count };
  }

  /** A live cohort with its creator. */
  find(projectId: number, id: number): Promise<CohortEntity | null> {
    return this.withCreator().where('c.project_id = :projectId AND c.id = :id AND NOT c.deleted', { projectId, id }).getOne();
  }

  /** Deleted ones too: what a write that soft-deleted a cohort answers with. */
  findAny(projectId: number, id: number): Promise<CohortEntity | null> {
    return this.withCreator().where('c.project_id = :projectId AND c.id = :id', { projectId, id }).getOne();
  }

  /** The live cohort, row-locked for the rest of the transaction (its creator stays unlocked). */
  findForUpdate(em: EntityManager, projectId: number, id: number): Promise<CohortEntity | null> {
    return this.withCreator(em)
      .where('c.project_id = :projectId AND c.id = :id AND NOT c.deleted', { projectId, id })
      .setLock('pessimistic_write', undefined, ['c'])
      .getOne();
  }

  /** Live cohorts of the project among `ids`. */
  findLive(projectId: number, ids: number[]): Promise<CohortEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.getRepository(CohortEntity).findBy({ projectId, id: In(ids), deleted: false });
  }

  /** Every live cohort of the project: the graph nested references are checked against. */
  async liveNodes(em: EntityManager, projectId: number): Promise<CohortNode[]> {
    const rows: Array<{ id: number; name: string; is_static: boolean; filters: Record<string, unknown> }> = await em.query(
      'SELECT id, name, is_static, filters FROM cohort WHERE project_id = $1 AND NOT deleted',
      [projectId],
    );
    return rows.map((row) => ({ id: row.id, name: row.name, isStatic: row.is_static, filters: row.filters }));
  }

  async liveDefinitions(projectId: number): Promise<CohortDefinition[]> {
    const nodes = await this.liveNodes(this.dataSource.manager, projectId);
    return nodes.map(({ id, isStatic, filters }) => ({ id, isStatic, filters }));
  }

  /**
   * Live flags' names and filters. Read here rather than through the flags service because that
   * module depends on this one (flags check the cohorts they target).
   */
  liveFlagUsages(em: EntityManager, projectId: number): Promise<FlagUsage[]> {
    return em.query('SELECT key, name, filters FROM feature_flag WHERE project_id = $1 AND NOT deleted', [projectId]);
  }

  async insert(em: EntityManager, projectId: number, c: CohortColumns, userId: number): Promise<number> {
    const [row]: Array<{ id: number }> = await em.query(
      `INSERT INTO cohort (project_id, name, description, filters, is_static, deleted, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [projectId, c.name, c.description, JSON.stringify(c.filters), c.isStatic, c.deleted, userId],
    );
    return row.id;
  }

  async update(em: EntityManager, projectId: number, id: number, c: CohortColumns): Promise<void> {
    await em.query(
      `UPDATE cohort SET name = $3, description = $4, filters = $5, is_static = $6, deleted = $7, last_modified_at = now()
        WHERE project_id = $1 AND id = $2`,
      [projectId, id, c.name, c.description, JSON.stringify(c.filters), c.isStatic, c.deleted],
    );
  }

  async touch(em: EntityManager, projectId: number, id: number): Promise<void> {
    await em.query('UPDATE cohort SET last_modified_at = now() WHERE project_id = $1 AND id = $2', [projectId, id]);
  }

  /** Adds the project's persons with these uuids; returns how many persons were found (members already included). */
  async addMembersByUuid(em: EntityManager, projectId: number, cohortId: number, uuids: string[]): Promise<number> {
    return this.addMembers(em, 'SELECT id FROM person WHERE project_id = $1 AND uuid = ANY($3::uuid[]) FOR KEY SHARE', [projectId, cohortId, uuids]);
  }

  /** Adds the persons owning these distinct ids; returns how many distinct persons were found. */
  async addMembersByDistinctId(em: EntityManager, projectId: number, cohortId: number, distinctIds: string[]): Promise<number> {
    const owners = 'SELECT person_id FROM person_distinct_id WHERE project_id = $1 AND distinct_id = ANY($3::text[])';
    return this.addMembers(em, `SELECT id FROM person WHERE project_id = $1 AND id IN (${owners}) FOR KEY SHARE`, [
      projectId,
      cohortId,
      distinctIds,
    ]);
  }

  /**
   * One statement, so a person found is a person inserted (or already there). The persons are locked
   * against deletion (FOR KEY SHARE): one deleted meanwhile is skipped instead of failing the foreign key.
   */
  private async addMembers(em: EntityManager, found: string, params: [number, number, string[]]): Promise<number> {
    if (params[2].length === 0) return 0;
    const [row]: Array<{ found: number }> = await em.query(
      `WITH found AS (${found}),
            added AS (INSERT INTO cohort_person (cohort_id, person_id) SELECT $2, id FROM found ON CONFLICT DO NOTHING RETURNING 1)
       SELECT (SELECT count(*) FROM found)::int AS found`,
      params,
    );
    return row.found;
  }

  async personIdByUuid(em: EntityManager, projectId: number, uuid: string): Promise<number | null> {
    const rows: Array<{ id: string }> = await em.query('SELECT id FROM person WHERE project_id = $1 AND uuid = $2::uuid', [projectId, uuid]);
    return rows.length === 0 ? null : Number(rows[0].id);
  }

  /** False when the person was not a member. */
  async removeMember(em: EntityManager, projectId: number, cohortId: number, personId: number): Promise<boolean> {
    // TypeORM answers a DELETE with [rows, affected count].
    const [, removed]: [unknown[], number] = await em.query(
      `DELETE FROM cohort_person cp USING cohort c
        WHERE c.project_id = $1 AND c.id = $2 AND cp.cohort_id = c.id AND cp.person_id = $3`,
      [projectId, cohortId, personId],
    );
    return removed > 0;
  }

  /** Member counts of the given cohorts (cohorts without members are absent). */
  async memberCounts(projectId: number, cohortIds: number[]): Promise<Map<number, number>> {
    if (cohortIds.length === 0) return new Map();
    const rows: Array<{ cohort_id: number; n: number }> = await this.dataSource.query(
      `SELECT cp.cohort_id, count(*)::int AS n FROM cohort_person cp JOIN cohort c ON c.id = cp.cohort_id
        WHERE c.project_id = $1 AND cp.cohort_id = ANY($2::int[]) GROUP BY cp.cohort_id`,
      [projectId, cohortIds],
    );
    return new Map(rows.map((row) => [row.cohort_id, row.n]));
  }
}
