import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { PropertySighting } from './definitions-recorder';
import { PropertyDefinitionType } from './property-definition.entity';

@Injectable()
export class EventDefinitionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async eventNames(projectId: number): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.dataSource.query(
      'SELECT name FROM event_definition WHERE project_id = $1 ORDER BY name',
      [projectId],
    );
    return rows.map((row) => row.name);
  }

  async propertyNames(projectId: number, type: PropertyDefinitionType): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.dataSource.query(
      'SELECT DISTINCT name FROM property_definition WHERE project_id = $1 AND type = $2 ORDER BY name',
      [projectId, type],
    );
    return rows.map((row) => row.name);
  }

  /** First sight creates the definition; later sights move `last_seen_at` forward. */
  async recordEventNames(projectId: number, names: string[], seenAt: Date): Promise<void> {
    if (names.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO event_definition (id, project_id, name, created_at, last_seen_at)
       SELECT gen_random_uuid(), $1, n, now(), $3 FROM unnest($2::text[]) AS n
       ON CONFLICT (project_id, name)
       DO UPDATE SET last_seen_at = GREATEST(event_definition.last_seen_at, EXCLUDED.last_seen_at)`,
      [projectId, names, seenAt],
    );
  }

  /** Per-day event counts behind `volume_30_day`; one statement per ingestion job. */
  async addVolumes(projectId: number, volumes: Array<{ name: string; day: string; count: number }>): Promise<void> {
    if (volumes.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO event_definition_daily (project_id, name, day, volume)
       SELECT $1, v.name, v.day, v.count FROM jsonb_to_recordset($2::jsonb) AS v(name text, day date, count bigint)
       ON CONFLICT (project_id, name, day) DO UPDATE SET volume = event_definition_daily.volume + EXCLUDED.volume`,
      [projectId, JSON.stringify(volumes)],
    );
  }

  /** Counts only names that have a definition, so arbitrary filter text never grows the table. */
  async addQueryUsage(projectId: number, names: string[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO event_definition_daily (project_id, name, day, query_usage)
       SELECT project_id, name, (now() AT TIME ZONE 'UTC')::date, 1 FROM event_definition
        WHERE project_id = $1 AND name = ANY($2::text[]) ORDER BY name
       ON CONFLICT (project_id, name, day) DO UPDATE SET query_usage = event_definition_daily.query_usage + 1`,
      [projectId, names],
    );
  }

  /** New property definitions; a known one only gains a type it did not have yet. */
  async recordProperties(projectId: number, properties: PropertySighting[]): Promise<void> {
    if (properties.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO property_definition (id, project_id, name, type, property_type, is_numerical)
       SELECT gen_random_uuid(), $1, p.name, p.type, p.property_type, p.is_numerical
         FROM jsonb_to_recordset($2::jsonb) AS p(name text, type smallint, property_type text, is_numerical boolean)
       ON CONFLICT (project_id, name, type, coalesce(group_type_index, -1))
       DO UPDATE SET property_type = EXCLUDED.property_type, is_numerical = EXCLUDED.is_numerical
        WHERE property_definition.property_type IS NULL AND EXCLUDED.property_type IS NOT NULL`,
      [
        projectId,
        JSON.stringify(properties.map((p) => ({ name: p.name, type: p.type, property_type: p.propertyType, is_numerical: p.isNumerical }))),
      ],
    );
  }
}
