import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import type { ActionColumns } from './action-changes';
import type { ActionDefinition } from './action-steps';
import { ActionEntity } from './action.entity';

@Injectable()
export class ActionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private withCreator(em: EntityManager = this.dataSource.manager): SelectQueryBuilder<ActionEntity> {
    return em.getRepository(ActionEntity).createQueryBuilder('a').leftJoinAndSelect('a.createdBy', 'createdBy');
  }

  /** Live actions, as PostHog lists them: most recently changed first, then by name. */
  list(projectId: number): Promise<ActionEntity[]> {
    return this.withCreator().where('a.project_id = :projectId AND NOT a.deleted', { projectId }).orderBy('a.updatedAt', 'DESC').addOrderBy('a.name', 'ASC').getMany();
  }

  /** An action, deleted ones too (PostHog retrieves them, to be restored). */
  find(projectId: number, id: number): Promise<ActionEntity | null> {
    return this.withCreator().where('a.project_id = :projectId AND a.id = :id', { projectId, id }).getOne();
  }

  findForUpdate(em: EntityManager, projectId: number, id: number): Promise<ActionEntity | null> {
    return this.withCreator(em).where('a.project_id = :projectId AND a.id = :id', { projectId, id }).setLock('pessimistic_write', undefined, ['a']).getOne();
  }

  /** A live action of the project with this name, other than `exceptId`. */
  async liveIdNamed(em: EntityManager, projectId: number, name: string, exceptId: number | null): Promise<number | null> {
    const rows: Array<{ id: number }> = await em.query('SELECT id FROM action WHERE project_id = $1 AND name = $2 AND NOT deleted AND id IS DISTINCT FROM $3 LIMIT 1', [projectId, name, exceptId]);
    return rows[0]?.id ?? null;
  }

  async insert(em: EntityManager, projectId: number, columns: ActionColumns, createdById: number): Promise<number> {
    const rows: Array<{ id: number }> = await em.query(
      `INSERT INTO action (project_id, name, description, tags, post_to_slack, slack_message_format, steps, deleted, pinned_at, created_by_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [projectId, columns.name, columns.description, columns.tags, columns.postToSlack, columns.slackMessageFormat, JSON.stringify(columns.steps), columns.deleted, columns.pinnedAt, createdById],
    );
    return rows[0].id;
  }

  async update(em: EntityManager, projectId: number, id: number, columns: ActionColumns): Promise<void> {
    await em.query(
      `UPDATE action SET name = $3, description = $4, tags = $5, post_to_slack = $6, slack_message_format = $7, steps = $8, deleted = $9, pinned_at = $10, updated_at = now()
       WHERE project_id = $1 AND id = $2`,
      [projectId, id, columns.name, columns.description, columns.tags, columns.postToSlack, columns.slackMessageFormat, JSON.stringify(columns.steps), columns.deleted, columns.pinnedAt],
    );
  }

  /** One live action of the project, as the events list matches events against it. */
  async liveDefinition(projectId: number, id: number): Promise<ActionDefinition | null> {
    const rows: ActionDefinition[] = await this.dataSource.query('SELECT id, name, steps FROM action WHERE project_id = $1 AND id = $2 AND NOT deleted', [projectId, id]);
    return rows[0] ?? null;
  }

  /** Live actions of the project: what insights resolve `actions` series against. */
  async liveDefinitions(projectId: number): Promise<ActionDefinition[]> {
    return this.dataSource.query('SELECT id, name, steps FROM action WHERE project_id = $1 AND NOT deleted', [projectId]);
  }
}
