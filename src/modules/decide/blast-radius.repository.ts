import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface PersonRow {
  id: string;
  properties: Record<string, unknown>;
  cohorts: number[];
}

export interface GroupRow {
  key: string;
  properties: Record<string, unknown>;
}

/** Walks a project's persons or groups in key order, a page at a time, so memory stays flat however many there are. */
@Injectable()
export class BlastRadiusRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  personsAfter(projectId: number, afterId: string, limit: number): Promise<PersonRow[]> {
    return this.dataSource.query(
      `SELECT p.id, p.properties, ARRAY(SELECT cp.cohort_id FROM cohort_person cp WHERE cp.person_id = p.id) AS cohorts
         FROM person p WHERE p.project_id = $1 AND p.id > $2 ORDER BY p.id LIMIT $3`,
      [projectId, afterId, limit],
    );
  }

  groupsAfter(projectId: number, typeIndex: number, afterKey: string | null, limit: number): Promise<GroupRow[]> {
    return this.dataSource.query(
      `SELECT group_key AS key, properties FROM "group"
        WHERE project_id = $1 AND group_type_index = $2 AND ($3::text IS NULL OR group_key > $3)
        ORDER BY group_key LIMIT $4`,
      [projectId, typeIndex, afterKey, limit],
    );
  }
}
