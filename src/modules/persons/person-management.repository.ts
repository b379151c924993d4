import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { BoundedRead } from '../../database/bounded-reads';
import type { CohortDefinition } from '../../kernel/cohort-match';
import { prefixIndexedEquals } from '../../database/prefix-index';
import { propertyFiltersToSql } from '../events/property-filter-sql';
import type { PropertyNode } from '../../kernel/property-filters';
import type { PersonSelector } from './person-bulk-delete';
import type { PersonView } from './person.presenter';
import { likePattern } from '../../database/like-pattern';
import { SqlParams } from '../../database/sql-params';

export interface PersonListQuery {
  distinctId?: string;
  email?: string;
  /** Matched case-insensitively as a substring of email, name and distinct ids, or exactly as the uuid. */
  search?: string;
  searchUuid?: string;
  properties: PropertyNode | null;
  cohorts: ReadonlyMap<number, CohortDefinition>;
  now: Date;
}

interface PersonRow {
  id: string;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: Date;
  distinct_ids: string[] | null;
}

const PERSON_COLUMNS = `p.id, p.uuid, p.properties, p.is_identified, p.created_at,
  ARRAY(SELECT d.distinct_id FROM person_distinct_id d WHERE d.person_id = p.id ORDER BY d.seq) AS distinct_ids`;

const toView = (row: PersonRow): PersonView => ({
  id: Number(row.id),
  uuid: row.uuid,
  properties: row.properties,
  isIdentified: row.is_identified,
  createdAt: row.created_at,
  distinctIds: row.distinct_ids ?? [],
});

/** Beyond this many matches a search walks the newest persons instead of collecting every match. */
const SEARCH_CANDIDATES = 5000;
/** How many of the newest persons a search tests row by row before it turns to the indexes. */
const SEARCH_WINDOW = 5000;

/**
 * Persons whose email, name or distinct ids contain the term, or whose uuid is it: one query per trigram
 * index (each with its own parameters), sent at once on separate connections, so a search waits for the
 * slowest of them rather than their sum. Each stops after `cap` ids.
 */
function searchBranches(projectId: number, pattern: string, uuid: string | undefined, cap: number): Array<{ sql: string; params: unknown[] }> {
  const term = [projectId, cap, pattern];
  const branches = [
    { sql: `SELECT id FROM person WHERE project_id = $1 AND (properties ->> 'email') ILIKE $3 LIMIT $2`, params: term },
    { sql: `SELECT id FROM person WHERE project_id = $1 AND (properties ->> 'name') ILIKE $3 LIMIT $2`, params: term },
    { sql: `SELECT person_id AS id FROM person_distinct_id WHERE project_id = $1 AND distinct_id ILIKE $3 LIMIT $2`, params: term },
  ];
  if (uuid) branches.push({ sql: 'SELECT id FROM person WHERE project_id = $1 AND uuid = $3 LIMIT $2', params: [projectId, cap, uuid] });
  return branches;
}

/**
 * The same test row by row, for terms so common that the newest persons match at once. The distinct ids
 * are read per person through their person_id index: an EXISTS here would be planned as one trigram
 * search over every distinct id, which costs a rare term as much as the index branches themselves.
 */
function searchFilter(pattern: string, uuid: string | null): string {
  return `((p.properties ->> 'email') ILIKE ${pattern} OR (p.properties ->> 'name') ILIKE ${pattern}${uuid ? ` OR p.uuid = ${uuid}` : ''}
    OR (SELECT bool_or(d.distinct_id ILIKE ${pattern}) FROM person_distinct_id d WHERE d.person_id = p.id))`;
}

/** Management reads and writes of persons; ingestion's own writes stay in PersonsRepository. */
@Injectable()
export class PersonManagementRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The filters other than `search`, as SQL conditions over `p`. */
  private conditions(projectId: number, query: PersonListQuery, bind: SqlParams): string[] {
    const project = bind.add(projectId);
    const where = [`p.project_id = ${project}`];
    if (query.distinctId !== undefined) {
      where.push(`p.id IN (SELECT person_id FROM person_distinct_id WHERE project_id = ${project} AND distinct_id = ${bind.add(query.distinctId)})`);
    }
    if (query.email !== undefined) where.push(prefixIndexedEquals(`(p.properties ->> 'email')`, bind.add(query.email)));
    if (query.properties) {
      const columns = { person: 'p.properties' };
      // As PostHog's persons list: `exact` is case-sensitive here; only flags ignore case.
      where.push(propertyFiltersToSql(query.properties, { columns, personId: 'p.id', now: query.now, cohorts: query.cohorts, caseSensitiveExact: true }, bind));
    }
    return where;
  }

  private async page(em: EntityManager, from: string, where: string[], bind: SqlParams, limit: number, offset: number): Promise<PersonView[]> {
    const rows: PersonRow[] = await em.query(
      `SELECT ${PERSON_COLUMNS} FROM ${from} WHERE ${where.join(' AND ')}
        ORDER BY p.created_at DESC, p.id DESC LIMIT ${bind.add(limit)} OFFSET ${bind.add(offset)}`,
      bind.values,
    );
    return rows.map(toView);
  }

  /**
   * Newest first (`created_at DESC, id DESC`), as PostHog lists persons. Every statement runs through `read`
   * (the management query timeout); a search sends several at once, each on a connection of its own.
   */
  async list(read: BoundedRead, projectId: number, query: PersonListQuery, limit: number, offset: number): Promise<PersonView[]> {
    if (!query.search) {
      const bind = new SqlParams();
      return read((em) => this.page(em, 'person p', this.conditions(projectId, query, bind), bind, limit, offset));
    }
    return this.search(read, projectId, query, limit, offset);
  }

  /**
   * A search costs what its answer costs. First the newest SEARCH_WINDOW persons are tested row by row:
   * if a full page matches there, it is the answer (every other match is older). Otherwise the term is
   * rare: the trigram indexes collect its matches (the union of email, name, distinct ids, uuid), and
   * only above SEARCH_CANDIDATES of them does the search walk all persons newest first.
   */
  private async search(read: BoundedRead, projectId: number, query: PersonListQuery, limit: number, offset: number): Promise<PersonView[]> {
    const pattern = likePattern(query.search ?? '');
    const probe = new SqlParams();
    const probeWhere = this.conditions(projectId, query, probe);
    const window = `(SELECT * FROM person WHERE project_id = ${probe.add(projectId)} ORDER BY created_at DESC, id DESC LIMIT ${SEARCH_WINDOW}) p`;
    probeWhere.push(searchFilter(probe.add(pattern), query.searchUuid ? probe.add(query.searchUuid) : null));
    const newest = await read((em) => this.page(em, window, probeWhere, probe, limit, offset));
    if (newest.length === limit) return newest;
    const branches = searchBranches(projectId, pattern, query.searchUuid, SEARCH_CANDIDATES + 1);
    const found: Array<Array<{ id: string }>> = await Promise.all(branches.map((branch) => read((em) => em.query(branch.sql, branch.params))));
    const ids = [...new Set(found.flat().map((row) => row.id))];
    const bind = new SqlParams();
    const where = this.conditions(projectId, query, bind);
    if (ids.length <= SEARCH_CANDIDATES) where.push(`p.id = ANY(${bind.add(ids)}::bigint[])`);
    else where.push(searchFilter(bind.add(pattern), query.searchUuid ? bind.add(query.searchUuid) : null));
    return read((em) => this.page(em, 'person p', where, bind, limit, offset));
  }

  async findById(projectId: number, id: number, em: EntityManager = this.dataSource.manager): Promise<PersonView | null> {
    const rows: PersonRow[] = await em.query(`SELECT ${PERSON_COLUMNS} FROM person p WHERE p.project_id = $1 AND p.id = $2`, [projectId, id]);
    return rows.length ? toView(rows[0]) : null;
  }

  /** Persons by id, newest first then by uuid (the order PostHog shows the persons behind an insight). */
  async findByIds(projectId: number, ids: number[]): Promise<PersonView[]> {
    if (ids.length === 0) return [];
    const rows: PersonRow[] = await this.dataSource.query(
      `SELECT ${PERSON_COLUMNS} FROM person p WHERE p.project_id = $1 AND p.id = ANY($2::bigint[]) ORDER BY p.created_at DESC, p.uuid`,
      [projectId, ids],
    );
    return rows.map(toView);
  }

  async findIdByUuid(projectId: number, uuid: string): Promise<number | null> {
    const rows: Array<{ id: string }> = await this.dataSource.query('SELECT id FROM person WHERE project_id = $1 AND uuid = $2', [projectId, uuid]);
    return rows.length ? Number(rows[0].id) : null;
  }

  /** The person, row-locked for the transaction: ingestion locks the same row, so neither loses a write. */
  async lock(em: EntityManager, projectId: number, id: number): Promise<PersonView | null> {
    const rows = await em.query('SELECT id FROM person WHERE project_id = $1 AND id = $2 FOR UPDATE', [projectId, id]);
    return rows.length ? this.findById(projectId, id, em) : null;
  }

  async insert(em: EntityManager, projectId: number, uuid: string, properties: Record<string, unknown>, distinctId: string): Promise<number> {
    const [row]: Array<{ id: string }> = await em.query(
      `INSERT INTO person (project_id, uuid, properties, is_identified) VALUES ($1, $2, $3, false) RETURNING id`,
      [projectId, uuid, JSON.stringify(properties)],
    );
    await em.query('INSERT INTO person_distinct_id (project_id, distinct_id, person_id) VALUES ($1, $2, $3)', [projectId, distinctId, row.id]);
    return Number(row.id);
  }

  async setProperties(em: EntityManager, projectId: number, id: number, properties: Record<string, unknown>): Promise<void> {
    await em.query('UPDATE person SET properties = $3, version = version + 1 WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
      JSON.stringify(properties),
    ]);
  }

  /** Moves one distinct id to a new person of its own (split). */
  async moveToNewPerson(em: EntityManager, projectId: number, distinctId: string, uuid: string): Promise<void> {
    const [row]: Array<{ id: string }> = await em.query(
      `INSERT INTO person (project_id, uuid, properties, is_identified) VALUES ($1, $2, '{}', false) RETURNING id`,
      [projectId, uuid],
    );
    await em.query('UPDATE person_distinct_id SET person_id = $3 WHERE project_id = $1 AND distinct_id = $2', [projectId, distinctId, row.id]);
  }

  /**
   * The persons a bulk delete names (by uuid, or by any distinct id they own), locked in id order as
   * ingestion locks persons, so the two wait for each other instead of deadlocking.
   */
  async lockForDeletion(em: EntityManager, projectId: number, selector: PersonSelector): Promise<PersonView[]> {
    const [match, values] =
      'uuids' in selector
        ? ['p.uuid = ANY($2::uuid[])', selector.uuids]
        : ['p.id IN (SELECT person_id FROM person_distinct_id WHERE project_id = $1 AND distinct_id = ANY($2::text[]))', selector.distinctIds];
    const locked: Array<{ id: string }> = await em.query(
      `SELECT p.id FROM person p WHERE p.project_id = $1 AND ${match} ORDER BY p.id FOR UPDATE OF p`,
      [projectId, values],
    );
    if (locked.length === 0) return [];
    const rows: PersonRow[] = await em.query(`SELECT ${PERSON_COLUMNS} FROM person p WHERE p.project_id = $1 AND p.id = ANY($2::bigint[]) ORDER BY p.id`, [
      projectId,
      locked.map((row) => row.id),
    ]);
    return rows.map(toView);
  }

  /** Their distinct ids, hash-key overrides and static cohort memberships go with them (ON DELETE CASCADE). */
  async delete(em: EntityManager, projectId: number, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await em.query('DELETE FROM person WHERE project_id = $1 AND id = ANY($2::bigint[])', [projectId, ids]);
  }

  /** Events of these distinct ids (the distinct_id index finds them in every partition). */
  async deleteEvents(em: EntityManager, projectId: number, distinctIds: string[]): Promise<void> {
    if (distinctIds.length === 0) return;
    await em.query('DELETE FROM event WHERE project_id = $1 AND distinct_id = ANY($2::text[])', [projectId, distinctIds]);
  }

  /** Most common values of a person property (as text), with how many persons hold each. */
  async propertyValues(em: EntityManager, projectId: number, key: string, contains: string | null, limit: number): Promise<Array<{ name: string; count: number }>> {
    const rows: Array<{ name: string; count: string }> = await em.query(
      `SELECT coalesce(properties ->> $2::text, 'null') AS name, count(*) AS count FROM person
        WHERE project_id = $1 AND properties ? $2::text AND ($3::text IS NULL OR coalesce(properties ->> $2::text, 'null') ILIKE $3)
        GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT $4`,
      [projectId, key, contains === null ? null : likePattern(contains), limit],
    );
    return rows.map((row) => ({ name: row.name, count: Number(row.count) }));
  }

  /** Person property names with the number of persons holding each, most common first. */
  async propertyNames(em: EntityManager, projectId: number): Promise<Array<{ name: string; count: number }>> {
    const rows: Array<{ name: string; count: string }> = await em.query(
      `SELECT k AS name, count(*) AS count FROM person, jsonb_object_keys(properties) AS k
        WHERE project_id = $1 GROUP BY k ORDER BY count(*) DESC, k`,
      [projectId],
    );
    return rows.map((row) => ({ name: row.name, count: Number(row.count) }));
  }

  /** Live cohorts of the project, for filters and membership. */
  async liveCohorts(projectId: number): Promise<Array<CohortDefinition & { name: string; description: string; createdAt: Date }>> {
    const rows: Array<{ id: number; is_static: boolean; filters: Record<string, unknown>; name: string; description: string; created_at: Date }> =
      await this.dataSource.query(
        'SELECT id, is_static, filters, name, description, created_at FROM cohort WHERE project_id = $1 AND NOT deleted ORDER BY id',
        [projectId],
      );
    return rows.map((r) => ({ id: r.id, isStatic: r.is_static, filters: r.filters, name: r.name, description: r.description, createdAt: r.created_at }));
  }

  async staticCohortIds(projectId: number, personId: number): Promise<Set<number>> {
    const rows: Array<{ cohort_id: number }> = await this.dataSource.query(
      `SELECT cp.cohort_id FROM cohort_person cp JOIN cohort c ON c.id = cp.cohort_id
        WHERE c.project_id = $1 AND cp.person_id = $2`,
      [projectId, personId],
    );
    return new Set(rows.map((row) => row.cohort_id));
  }
}
