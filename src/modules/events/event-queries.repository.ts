import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CohortDefinition } from '../../kernel/cohort-match';
import { prefixIndexedEquals } from '../../database/prefix-index';
import type { EventOrder } from './event-list-order';
import type { EventRow, PersonSummary } from './event.presenter';
import type { EventListFilters } from './event-requests';
import { ActionMatcher, actionFilterTrees } from '../actions/action-matcher';
import { actionSql } from '../actions/action-sql';
import { pgChainDialect } from './chain-dialect-sql';
import { FilterSqlContext, needsPerson, propertyFiltersToSql } from './property-filter-sql';
import type { PropertyNode } from '../../kernel/property-filters';
import { likePattern } from '../../database/like-pattern';
import { SqlParams } from '../../database/sql-params';

const EVENT_COLUMNS = `e.uuid::text AS uuid, e.event, e.distinct_id, e.properties, e.elements_chain,
  to_char(e.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS timestamp`;

const ORDER_SQL: Record<EventOrder, string> = {
  desc: 'e.timestamp DESC, e.uuid ASC',
  asc: 'e.timestamp ASC, e.uuid DESC',
};

/** Events a list reads, with what the filters resolved to beforehand. */
export interface EventListQuery extends EventListFilters {
  /** Distinct ids of `person_id` (empty: the person is unknown, so nothing matches). */
  personDistinctIds?: string[];
  cohorts: ReadonlyMap<number, CohortDefinition>;
  now: Date;
  /** `action_id`'s action: events matching any of its steps. */
  action?: ActionMatcher;
}

const ELEMENTS_CHAIN = 'e.elements_chain';

function conditions(projectId: number, query: EventListQuery, bind: SqlParams): string[] {
  const where = [`e.project_id = ${bind.add(projectId)}`];
  const before = bind.add(query.before);
  // Keyset paging over (timestamp DESC, uuid ASC): the order of event_project_timestamp_idx.
  if (query.beforeId) where.push(`e.timestamp <= ${before}::timestamptz AND (e.timestamp < ${before}::timestamptz OR e.uuid > ${bind.add(query.beforeId)}::uuid)`);
  else where.push(`e.timestamp < ${before}::timestamptz`);
  if (query.after) {
    const after = bind.add(query.after);
    // Oldest first pages over (timestamp ASC, uuid DESC), the same index read backwards, so the tiebreak is reversed too.
    if (query.afterId) where.push(`e.timestamp >= ${after}::timestamptz AND (e.timestamp > ${after}::timestamptz OR e.uuid < ${bind.add(query.afterId)}::uuid)`);
    else where.push(`e.timestamp > ${after}::timestamptz`);
  }
  if (query.event !== undefined) where.push(prefixIndexedEquals('e.event', bind.add(query.event)));
  if (query.distinctId !== undefined) where.push(`e.distinct_id = ${bind.add(query.distinctId)}`);
  if (query.personDistinctIds) where.push(`e.distinct_id = ANY(${bind.add(query.personDistinctIds)}::text[])`);
  const columns = { event: 'e.properties', person: `coalesce(pp.properties, '{}'::jsonb)` };
  // PostHog's events list compares `exact` case-sensitively (its query engine compiles it to `=`); only flags ignore case.
  const filters: FilterSqlContext = { columns, elementsChain: ELEMENTS_CHAIN, personId: 'pp.id', now: query.now, cohorts: query.cohorts, caseSensitiveExact: true };
  if (query.properties) where.push(propertyFiltersToSql(query.properties, filters, bind));
  if (query.action) {
    const actionColumns = { event: 'e.event', currentUrl: `coalesce(e.properties ->> '$current_url', '')`, elementsChain: ELEMENTS_CHAIN, filter: (node: PropertyNode) => propertyFiltersToSql(node, filters, bind) };
    where.push(actionSql(query.action, actionColumns, pgChainDialect(bind)));
  }
  return where;
}

/**
 * Reads of stored events for the management API; ingestion writes through EventsRepository. Every read runs on
 * the connection of a bounded read (database/bounded-reads.ts), which the service opens.
 */
@Injectable()
export class EventQueriesRepository {
  /**
   * Newest first (timestamp DESC, uuid ASC) or oldest first (timestamp ASC, uuid DESC): both are
   * event_project_timestamp_idx read forwards or backwards, merged across partitions without a sort.
   * Fetches `limit + 1` rows so the caller knows whether there is a next page.
   */
  async list(em: EntityManager, projectId: number, query: EventListQuery, limit: number, offset: number): Promise<EventRow[]> {
    const bind = new SqlParams();
    const where = conditions(projectId, query, bind);
    // Person filters read the person who owns the distinct id now (merges move ids, not events).
    const join = [query.properties, ...actionFilterTrees(query.action)].some(needsPerson)
      ? `LEFT JOIN person_distinct_id pd ON pd.project_id = e.project_id AND pd.distinct_id = e.distinct_id
         LEFT JOIN person pp ON pp.id = pd.person_id`
      : '';
    return em.query(
      `SELECT ${EVENT_COLUMNS} FROM event e ${join} WHERE ${where.join(' AND ')}
        ORDER BY ${ORDER_SQL[query.order]} LIMIT ${bind.add(limit + 1)} OFFSET ${bind.add(offset)}`,
      bind.values,
    );
  }

  /** event_uuid gives the timestamp, which leads to the one partition holding the event. */
  async findByUuid(em: EntityManager, projectId: number, uuid: string): Promise<EventRow | null> {
    const rows: EventRow[] = await em.query(
      `SELECT ${EVENT_COLUMNS} FROM event_uuid u JOIN event e ON e.project_id = u.project_id AND e.timestamp = u.timestamp AND e.uuid = u.uuid
        WHERE u.project_id = $1 AND u.uuid = $2`,
      [projectId, uuid],
    );
    return rows[0] ?? null;
  }

  /** The current person of each distinct id, with the person's first distinct id. */
  async personSummaries(em: EntityManager, projectId: number, distinctIds: string[]): Promise<Map<string, PersonSummary>> {
    if (distinctIds.length === 0) return new Map();
    const rows: Array<{ distinct_id: string; is_identified: boolean; properties: Record<string, unknown>; first_id: string }> = await em.query(
      `SELECT pd.distinct_id, p.is_identified, p.properties,
              (SELECT d.distinct_id FROM person_distinct_id d WHERE d.person_id = p.id ORDER BY d.seq LIMIT 1) AS first_id
         FROM person_distinct_id pd JOIN person p ON p.id = pd.person_id
        WHERE pd.project_id = $1 AND pd.distinct_id = ANY($2::text[])`,
      [projectId, distinctIds],
    );
    return new Map(rows.map((r) => [r.distinct_id, { isIdentified: r.is_identified, firstDistinctId: r.first_id, properties: r.properties }]));
  }

  async distinctIdsOfPerson(em: EntityManager, projectId: number, ref: { id: number } | { uuid: string }): Promise<string[]> {
    const [column, value] = 'id' in ref ? ['p.id', ref.id] : ['p.uuid', ref.uuid];
    const rows: Array<{ distinct_id: string }> = await em.query(
      `SELECT d.distinct_id FROM person p JOIN person_distinct_id d ON d.person_id = p.id WHERE p.project_id = $1 AND ${column} = $2`,
      [projectId, value],
    );
    return rows.map((row) => row.distinct_id);
  }

  /**
   * Values of one event property among the latest events of the past week (lists flattened, values as
   * text), most frequent first. The scan stops after `sample` events, so a busy project answers quickly.
   */
  async propertyValues(em: EntityManager, projectId: number, key: string, events: string[], contains: string | null, sample: number, limit: number): Promise<string[]> {
    const rows: Array<{ name: string }> = await em.query(
      `SELECT name FROM (
         SELECT CASE WHEN jsonb_typeof(x) = 'string' THEN x #>> '{}' ELSE x::text END AS name
           FROM (SELECT e.properties -> $2::text AS v FROM event e
                  WHERE e.project_id = $1 AND e.timestamp > now() - interval '7 days' AND e.timestamp < now() + interval '5 seconds'
                    AND e.properties ? $2::text AND (cardinality($3::text[]) = 0 OR e.event = ANY($3::text[]))
                  ORDER BY e.timestamp DESC LIMIT $5) s
          CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(v) = 'array' THEN v ELSE jsonb_build_array(v) END) AS x
       ) values_seen
       WHERE $4::text IS NULL OR name ILIKE $4
       GROUP BY name ORDER BY count(*) DESC, length(name), name LIMIT $6`,
      [projectId, key, events, contains === null ? null : likePattern(contains), sample, limit],
    );
    return rows.map((row) => row.name);
  }

  async liveCohorts(em: EntityManager, projectId: number): Promise<Array<CohortDefinition & { id: number }>> {
    const rows: Array<{ id: number; is_static: boolean; filters: Record<string, unknown> }> = await em.query(
      'SELECT id, is_static, filters FROM cohort WHERE project_id = $1 AND NOT deleted',
      [projectId],
    );
    return rows.map((r) => ({ id: r.id, isStatic: r.is_static, filters: r.filters }));
  }
}
