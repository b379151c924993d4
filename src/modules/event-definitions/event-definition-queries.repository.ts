import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UserBasicDto } from '../users/dto/user-basic.dto';
import type { DefinitionListFilters } from './event-definition-rules';
import { likePattern } from '../../database/like-pattern';

export interface DefinitionRow {
  id: string;
  name: string;
  owner_id: number | null;
  description: string;
  tags: string[];
  volume_30_day: string;
  query_usage_30_day: string;
  created_at: Date;
  updated_at: Date | null;
  updated_by: UserBasicDto | null;
  last_seen_at: Date | null;
  verified: boolean;
  verified_at: Date | null;
  verified_by_id: number | null;
  verified_by: UserBasicDto | null;
  post_to_chat: boolean;
}

export interface DefinitionChanges {
  ownerId: number | null;
  description: string;
  tags: string[];
  verified: boolean;
  verifiedAt: Date | null;
  verifiedById: number | null;
  postToChat: boolean;
}

const userJson = (alias: string) => `CASE WHEN ${alias}.id IS NULL THEN NULL ELSE json_build_object('id', ${alias}.id, 'uuid', ${alias}.uuid,
  'distinct_id', ${alias}.distinct_id, 'first_name', ${alias}.first_name, 'last_name', ${alias}.last_name, 'email', ${alias}.email) END`;

/** The definition with its 30-day figures (a sum over at most 31 daily rows) and embedded users. */
const SELECT = `SELECT d.id, d.name, d.owner_id, d.description, d.tags, d.created_at, d.updated_at, d.last_seen_at, d.verified,
    d.verified_at, d.verified_by_id, d.post_to_chat, ${userJson('ub')} AS updated_by, ${userJson('vb')} AS verified_by,
    coalesce(s.volume, 0) AS volume_30_day, coalesce(s.query_usage, 0) AS query_usage_30_day
  FROM event_definition d
  LEFT JOIN app_user ub ON ub.id = d.updated_by_id
  LEFT JOIN app_user vb ON vb.id = d.verified_by_id
  LEFT JOIN LATERAL (SELECT sum(volume) AS volume, sum(query_usage) AS query_usage FROM event_definition_daily
                      WHERE project_id = d.project_id AND name = d.name AND day > (now() AT TIME ZONE 'UTC')::date - 30) s ON true`;

const ORDER_SQL: Record<DefinitionListFilters['ordering'][number]['column'], string> = {
  name: 'd.name',
  last_seen_at: 'd.last_seen_at',
  last_seen_day: `(d.last_seen_at AT TIME ZONE 'UTC')::date`,
};

@Injectable()
export class EventDefinitionQueriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async page(em: EntityManager, projectId: number, filters: DefinitionListFilters, limit: number, offset: number): Promise<{ rows: DefinitionRow[]; count: number }> {
    const params: unknown[] = [projectId];
    const where = ['d.project_id = $1'];
    for (const term of filters.terms) {
      params.push(likePattern(term));
      where.push(`d.name ILIKE $${params.length}`);
    }
    if (filters.eventType === 'event_custom') where.push(`d.name NOT LIKE '$%'`);
    if (filters.eventType === 'event_posthog') where.push(`d.name LIKE '$%'`);
    // NULLS LAST when descending and NULLS FIRST when ascending, as PostHog orders definitions.
    const order = filters.ordering.map((o) => `${ORDER_SQL[o.column]} ${o.descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`);
    const [{ count }] = await em.query(`SELECT count(*)::int AS count FROM event_definition d WHERE ${where.join(' AND ')}`, params);
    const rows = await em.query(
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY ${[...order, 'd.id'].join(', ')} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
    return { rows, count };
  }

  async find(projectId: number, id: string, em: EntityManager = this.dataSource.manager): Promise<DefinitionRow | null> {
    const rows: DefinitionRow[] = await em.query(`${SELECT} WHERE d.project_id = $1 AND d.id = $2`, [projectId, id]);
    return rows[0] ?? null;
  }

  async lock(em: EntityManager, projectId: number, id: string): Promise<boolean> {
    const rows = await em.query('SELECT 1 FROM event_definition WHERE project_id = $1 AND id = $2 FOR UPDATE', [projectId, id]);
    return rows.length > 0;
  }

  async update(em: EntityManager, projectId: number, id: string, c: DefinitionChanges, userId: number): Promise<void> {
    await em.query(
      `UPDATE event_definition
          SET owner_id = $3, description = $4, tags = $5, verified = $6, verified_at = $7, verified_by_id = $8,
              post_to_chat = $9, updated_at = now(), updated_by_id = $10
        WHERE project_id = $1 AND id = $2`,
      [projectId, id, c.ownerId, c.description, c.tags, c.verified, c.verifiedAt, c.verifiedById, c.postToChat, userId],
    );
  }
}
