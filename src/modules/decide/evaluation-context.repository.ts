import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EvaluationReadPool } from './evaluation-read-pool';
import { KeyBatcher } from './key-batcher';

/** The stored person of a distinct id, as evaluation reads it. */
export interface StoredPerson {
  id: number;
  properties: Record<string, unknown>;
  /** Static cohorts holding the person. */
  staticCohortIds: number[];
}

/**
 * What flag evaluation reads and writes beyond the flags themselves: the seam between the evaluation service and its
 * storage, so the service's tests supply an implementation the compiler checks against this, not a cast.
 */
export interface EvaluationContext {
  person(projectId: number, distinctId: string): Promise<StoredPerson | null>;
  /** Stored properties of the requested groups, keyed by group type index. */
  groups(projectId: number, wanted: Array<{ index: number; key: string }>): Promise<Map<number, Record<string, unknown>>>;
  /** The hash key each of these distinct ids' flags were pinned to (experience continuity), by flag key. */
  hashKeyOverrides(projectId: number, distinctIds: string[]): Promise<Map<string, string>>;
  writeHashKeyOverrides(projectId: number, distinctIds: string[], hashKey: string, flagKeys: string[]): Promise<void>;
}

const FOREIGN_KEY_VIOLATION = '23503';

function batcherFor<V>(batchers: Map<number, KeyBatcher<V>>, projectId: number, loadMany: (keys: string[]) => Promise<Map<string, V>>): KeyBatcher<V> {
  let batcher = batchers.get(projectId);
  if (!batcher) batchers.set(projectId, (batcher = new KeyBatcher(loadMany)));
  return batcher;
}

/** A group as one batch key: type index and group key (which may hold any character, so the index goes first). */
const groupKey = (index: number, key: string) => `${index}:${key}`;

function parseGroupKey(composite: string): { index: number; key: string } {
  const colon = composite.indexOf(':');
  return { index: Number(composite.slice(0, colon)), key: composite.slice(colon + 1) };
}

/**
 * The evaluation read model: the person (with static cohorts), groups and hash-key overrides of one
 * request, each in one indexed query (persons and groups shared with the requests of the same turn of
 * the event loop). It reads what ingestion writes and owns the override table.
 */
@Injectable()
export class EvaluationContextRepository implements EvaluationContext {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: EvaluationReadPool,
  ) {}

  /** Per project, the person and group lookups of the requests evaluated in one turn of the event loop. */
  private readonly personBatchers = new Map<number, KeyBatcher<StoredPerson>>();
  private readonly groupBatchers = new Map<number, KeyBatcher<Record<string, unknown>>>();

  person(projectId: number, distinctId: string): Promise<StoredPerson | null> {
    return batcherFor(this.personBatchers, projectId, (ids) => this.persons(projectId, ids)).load(distinctId);
  }

  /** Stored properties of the requested groups, keyed by group type index. */
  async groups(projectId: number, wanted: Array<{ index: number; key: string }>): Promise<Map<number, Record<string, unknown>>> {
    if (wanted.length === 0) return new Map();
    const batcher = batcherFor(this.groupBatchers, projectId, (keys) => this.storedGroups(projectId, keys));
    const found = await Promise.all(wanted.map((w) => batcher.load(groupKey(w.index, w.key))));
    const groups = new Map<number, Record<string, unknown>>();
    wanted.forEach((w, i) => {
      if (found[i]) groups.set(w.index, found[i]);
    });
    return groups;
  }

  /**
   * These two run on nearly every `/decide/`, so they are named prepared statements on connections that
   * plan them once (EvaluationReadPool), not once per request: planning this join costs more than running it.
   */
  private async persons(projectId: number, distinctIds: string[]): Promise<Map<string, StoredPerson>> {
    const { rows } = await this.reads.query<{ distinct_id: string; id: string; properties: Record<string, unknown> | null; cohorts: number[] }>({
      name: 'decide_persons',
      text: `SELECT d.distinct_id, p.id, p.properties, ARRAY(SELECT cp.cohort_id FROM cohort_person cp WHERE cp.person_id = p.id) AS cohorts
               FROM person_distinct_id d JOIN person p ON p.id = d.person_id
              WHERE d.project_id = $1 AND d.distinct_id = ANY($2::text[])`,
      values: [projectId, distinctIds],
    });
    return new Map(rows.map((row) => [row.distinct_id, { id: Number(row.id), properties: row.properties ?? {}, staticCohortIds: row.cohorts }]));
  }

  private async storedGroups(projectId: number, keys: string[]): Promise<Map<string, Record<string, unknown>>> {
    const wanted = keys.map(parseGroupKey);
    const { rows } = await this.reads.query<{ group_type_index: number; group_key: string; properties: Record<string, unknown> | null }>({
      name: 'decide_groups',
      text: `SELECT g.group_type_index, g.group_key, g.properties
               FROM unnest($2::smallint[], $3::text[]) AS w(type_index, key)
               JOIN "group" g ON g.project_id = $1 AND g.group_type_index = w.type_index AND g.group_key = w.key`,
      values: [projectId, wanted.map((w) => w.index), wanted.map((w) => w.key)],
    });
    return new Map(rows.map((row) => [groupKey(row.group_type_index, row.group_key), row.properties ?? {}]));
  }

  /**
   * Overrides of the persons owning `distinctIds`; where two persons have one for the same flag, the
   * person of the first distinct id wins.
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
