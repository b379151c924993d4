import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The stored person of a distinct id, as evaluation reads it. */
export interface StoredPerson {
  id: number;
  properties: Record<string, unknown>;
  /** Static cohorts holding the person. */
  staticCohortIds: number[];
}

const FOREIGN_KEY_VIOLATION = '23503';

/**
 * The evaluation read model: the person (with static cohorts), groups and hash-key overrides of one
 * request, each in one indexed query. It reads what ingestion writes and owns the override table.
 */
@Injectable()
export class EvaluationContextRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async person(projectId: number, distinctId: string): Promise<StoredPerson | null> {
    const rows: Array<{ id: string; properties: Record<string, unknown>; cohorts: number[] }> = await this.dataSource.query(
      `SELECT p.id, p.properties, ARRAY(SELECT cp.cohort_id FROM cohort_person cp WHERE cp.person_id = p.id) AS cohorts
         FROM person_distinct_id d JOIN person p ON p.id = d.person_id
        WHERE d.project_id = $1 AND d.distinct_id = $2`,
      [projectId, distinctId],
    );
    if (rows.length === 0) return null;
    return { id: Number(rows[0].id), properties: rows[0].properties ?? {}, staticCohortIds: rows[0].cohorts };
  }

  /** Stored properties of the requested groups, keyed by group type index. */
  async groups(projectId: number, wanted: Array<{ index: number; key: string }>): Promise<Map<number, Record<string, unknown>>> {
    if (wanted.length === 0) return new Map();
    const rows: Array<{ group_type_index: number; properties: Record<string, unknown> }> = await this.dataSource.query(
      `SELECT g.group_type_index, g.properties
         FROM unnest($2::smallint[], $3::text[]) AS w(type_index, key)
         JOIN "group" g ON g.project_id = $1 AND g.group_type_index = w.type_index AND g.group_key = w.key`,
      [projectId, wanted.map((w) => w.index), wanted.map((w) => w.key)],
    );
    return new Map(rows.map((row) => [row.group_type_index, row.properties ?? {}]));
  }

  /**
   * Overrides of the persons owning `distinctIds`; where two persons have one for the same flag, the
   * person of the first distinct id wins (reference/flags.md §4).
   */
  async hashKeyOverrides(projectId: number, distinctIds: string[]): Promise<Map<string, string>> {
    const rows: Array<{ feature_flag_key: string; hash_key: string; distinct_id: string }> = await this.dataSource.query(
      `SELECT o.feature_flag_key, o.hash_key, d.distinct_id
         FROM person_distinct_id d
         JOIN feature_flag_hash_key_override o ON o.project_id = d.project_id AND o.person_id = d.person_id
        WHERE d.project_id = $1 AND d.distinct_id = ANY($2::text[])`,
      [projectId, distinctIds],
    );
    const rank = (id: string) => distinctIds.indexOf(id);
    rows.sort((a, b) => rank(b.distinct_id) - rank(a.distinct_id));
    return new Map(rows.map((row) => [row.feature_flag_key, row.hash_key]));
  }

  /**
   * Gives every person owning one of `distinctIds` the override `hashKey` for each flag it has none for:
   * the first override wins and is never updated. A person deleted meanwhile (a merge) retries once.
   */
  async writeHashKeyOverrides(projectId: number, distinctIds: string[], hashKey: string, flagKeys: string[]): Promise<void> {
    const write = () =>
      this.dataSource.query(
        `INSERT INTO feature_flag_hash_key_override (project_id, person_id, feature_flag_key, hash_key)
         SELECT $1, d.person_id, k.key, $3
           FROM person_distinct_id d CROSS JOIN unnest($4::text[]) AS k(key)
          WHERE d.project_id = $1 AND d.distinct_id = ANY($2::text[])
         ON CONFLICT DO NOTHING`,
        [projectId, distinctIds, hashKey, flagKeys],
      );
    try {
      await write();
    } catch (error) {
      if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await write();
    }
  }
}
