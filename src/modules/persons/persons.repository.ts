import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';

export interface PersonRecord {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  createdAt: Date;
}

interface PersonRow {
  distinct_id: string;
  id: string;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: Date;
}

const toRecord = (row: Omit<PersonRow, 'distinct_id'>): PersonRecord => ({
  id: Number(row.id),
  uuid: row.uuid,
  properties: row.properties,
  isIdentified: row.is_identified,
  createdAt: row.created_at,
});

/** Person writes of ingestion. Every method runs in the caller's transaction and takes the project first. */
@Injectable()
export class PersonsRepository {
  /** Persons of these distinct ids, locked for the transaction in id order (a stable order avoids deadlocks). */
  async lockByDistinctIds(em: EntityManager, projectId: number, distinctIds: string[]): Promise<Map<string, PersonRecord>> {
    const found = new Map<string, PersonRecord>();
    if (distinctIds.length === 0) return found;
    const rows: PersonRow[] = await em.query(
      `SELECT d.distinct_id, p.id, p.uuid, p.properties, p.is_identified, p.created_at
         FROM person_distinct_id d JOIN person p ON p.id = d.person_id
        WHERE d.project_id = $1 AND d.distinct_id = ANY($2::text[])
        ORDER BY p.id
          FOR UPDATE OF p`,
      [projectId, distinctIds],
    );
    const byId = new Map<number, PersonRecord>();
    for (const row of rows) {
      const record = byId.get(Number(row.id)) ?? toRecord(row);
      byId.set(record.id, record);
      found.set(row.distinct_id, record);
    }
    return found;
  }

  async create(em: EntityManager, projectId: number, createdAt: Date): Promise<PersonRecord> {
    const [row] = await em.query(
      `INSERT INTO person (project_id, uuid, properties, is_identified, created_at)
       VALUES ($1, $2, '{}', false, $3) RETURNING id, uuid, properties, is_identified, created_at`,
      [projectId, randomUUID(), createdAt],
    );
    return toRecord(row);
  }

  /** A plain insert: if another transaction claimed the id meanwhile, the unique violation retries the job. */
  async addDistinctId(em: EntityManager, projectId: number, distinctId: string, personId: number): Promise<void> {
    await em.query('INSERT INTO person_distinct_id (project_id, distinct_id, person_id) VALUES ($1, $2, $3)', [
      projectId,
      distinctId,
      personId,
    ]);
  }

  async moveDistinctIds(em: EntityManager, projectId: number, fromPersonId: number, toPersonId: number): Promise<void> {
    await em.query('UPDATE person_distinct_id SET person_id = $3 WHERE project_id = $1 AND person_id = $2', [
      projectId,
      fromPersonId,
      toPersonId,
    ]);
  }

  /**
   * A merge keeps the experience-continuity hash keys of both persons; where both had one for a flag,
   * the target's stays (the first override written wins).
   */
  async moveHashKeyOverrides(em: EntityManager, projectId: number, fromPersonId: number, toPersonId: number): Promise<void> {
    await em.query(
      `INSERT INTO feature_flag_hash_key_override (project_id, person_id, feature_flag_key, hash_key)
       SELECT project_id, $3, feature_flag_key, hash_key FROM feature_flag_hash_key_override
        WHERE project_id = $1 AND person_id = $2
       ON CONFLICT DO NOTHING`,
      [projectId, fromPersonId, toPersonId],
    );
  }

  /** Static cohort memberships survive a merge: the target joins every cohort the source was in. */
  async moveStaticCohortMemberships(em: EntityManager, fromPersonId: number, toPersonId: number): Promise<void> {
    await em.query(
      `INSERT INTO cohort_person (cohort_id, person_id)
       SELECT cohort_id, $2 FROM cohort_person WHERE person_id = $1
       ON CONFLICT DO NOTHING`,
      [fromPersonId, toPersonId],
    );
  }

  async delete(em: EntityManager, projectId: number, personId: number): Promise<void> {
    await em.query('DELETE FROM person WHERE project_id = $1 AND id = $2', [projectId, personId]);
  }

  /** One statement for every changed person of a job. */
  async saveAll(em: EntityManager, projectId: number, persons: PersonRecord[]): Promise<void> {
    if (persons.length === 0) return;
    const rows = persons.map((p) => ({ id: p.id, properties: p.properties, is_identified: p.isIdentified, created_at: p.createdAt }));
    await em.query(
      `UPDATE person p
          SET properties = u.properties, is_identified = u.is_identified, created_at = u.created_at, version = p.version + 1
         FROM jsonb_to_recordset($2::jsonb) AS u(id bigint, properties jsonb, is_identified boolean, created_at timestamptz)
        WHERE p.project_id = $1 AND p.id = u.id`,
      [projectId, JSON.stringify(rows)],
    );
  }
}
