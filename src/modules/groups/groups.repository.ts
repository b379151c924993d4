import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

export const MAX_GROUP_TYPES = 5;

@Injectable()
export class GroupsRepository {
  /** The index of a group type, assigning the lowest free one (0–4) on first sight; null when all five are used. */
  async typeIndex(em: EntityManager, projectId: number, groupType: string): Promise<number | null> {
    const existing = await em.query('SELECT group_type_index FROM group_type_mapping WHERE project_id = $1 AND group_type = $2', [
      projectId,
      groupType,
    ]);
    if (existing.length > 0) return existing[0].group_type_index;
    const inserted = await em.query(
      `INSERT INTO group_type_mapping (project_id, group_type, group_type_index)
       SELECT $1, $2, min(i) FROM generate_series(0, ${MAX_GROUP_TYPES - 1}) AS i
        WHERE i NOT IN (SELECT group_type_index FROM group_type_mapping WHERE project_id = $1)
       HAVING min(i) IS NOT NULL
       ON CONFLICT DO NOTHING
       RETURNING group_type_index`,
      [projectId, groupType],
    );
    return inserted.length > 0 ? inserted[0].group_type_index : null;
  }

  /** Upsert: new keys are added and given keys overwrite, as `$group_set` does. */
  async upsert(em: EntityManager, projectId: number, typeIndex: number, key: string, properties: Record<string, unknown>, at: Date) {
    await em.query(
      `INSERT INTO "group" (project_id, group_type_index, group_key, properties, created_at)
       VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (project_id, group_type_index, group_key)
       DO UPDATE SET properties = "group".properties || EXCLUDED.properties, version = "group".version + 1`,
      [projectId, typeIndex, key, JSON.stringify(properties), at],
    );
  }
}
