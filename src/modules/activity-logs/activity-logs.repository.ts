import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ActivityDetail, ActivityLogEntity } from './activity-log.entity';

export interface NewActivity {
  organizationId: string;
  userId: number | null;
  activity: string;
  scope: string;
  itemId: string;
  detail: ActivityDetail;
}

@Injectable()
export class ActivityLogsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Written inside the caller's transaction, so a change and its log entry commit together. */
  async insert(em: EntityManager, projectId: number, entry: NewActivity): Promise<void> {
    await em.query(
      `INSERT INTO activity_log (id, organization_id, project_id, user_id, activity, scope, item_id, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [randomUUID(), entry.organizationId, projectId, entry.userId, entry.activity, entry.scope, entry.itemId, entry.detail],
    );
  }

  /** Newest first; `itemId` narrows to one item. */
  async page(
    projectId: number,
    scope: string,
    itemId: string | null,
    limit: number,
    offset: number,
  ): Promise<{ rows: ActivityLogEntity[]; count: number }> {
    const query = this.dataSource
      .getRepository(ActivityLogEntity)
      .createQueryBuilder('a')
      .leftJoinAndSelect('a.user', 'user')
      .where('a.project_id = :projectId AND a.scope = :scope', { projectId, scope })
      .orderBy('a.createdAt', 'DESC')
      .addOrderBy('a.id', 'DESC');
    if (itemId !== null) query.andWhere('a.item_id = :itemId', { itemId });
    const [rows, count] = await query.take(limit).skip(offset).getManyAndCount();
    return { rows, count };
  }
}
