import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export const MAX_GROUP_TYPES = 5;

@Injectable()
export class GroupsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
    if (inserted.length === 0) return null;
    // Group flags resolve type names through this mapping: evaluation caches must reload it.
    await em.query('UPDATE project SET flags_version = flags_version + 1 WHERE id = $1', [projectId]);
    return inserted[0].group_type_index;
  }

  /** {@link typeIndex} on a connection of its own, outside any transaction. */
  assignType(projectId: number, groupType: string): Promise<number | null> {
    return this.typeIndex(this.dataSource.manager, projectId, groupType);
  }

  async typeMapping(projectId: number): Promise<Array<{ index: number; name: string }>> {
    const rows: Array<{ group_type_index: number; group_type: string }> = await this.dataSource.query(
      'SELECT group_type_index, group_type FROM group_type_mapping WHERE project_id = $1 ORDER BY group_type_index',
      [projectId],
    );
    return rows.map((row) => ({ index: row.group_type_index, name: row.group_type }));
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
