import { Session } from 'chdb';
import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';
import { ManagementReads1763780500000 } from '../../../../src/database/migrations/1763780500000-ManagementReads';
import { SqlParams } from '../../../../src/database/sql-params';
import { ChParams } from '../../../../src/modules/analytics/engine/ch-sql';
import { HOT_EVENT_PROPERTIES, HOT_JSON_NULLS_COLUMN, hotEventColumns, jsonNullsExpression, propertyTextExpression } from '../../../../src/modules/analytics/engine/schema/hot-properties';
import { SCHEMA_MIGRATIONS } from '../../../../src/modules/analytics/engine/schema/schema-migrations';
import { ChFilterContext, propertyFiltersToClickHouse } from '../../../../src/modules/analytics/clickhouse/property-filter.ch';
import { CohortDefinition, FilterSqlContext, propertyFiltersToSql } from '../../../../src/modules/events/property-filter-sql';
import type { PropertyNode } from '../../../../src/kernel/property-filters';
import { databaseUrl, TEST_POSTGRES_URL } from '../../../support/test-env';
import { Json, jsonText } from './property-filter.arbitraries';

/** One row the filters run over: an event with its person's and groups' properties (0 and 1; others have none). */
export interface FilterRow {
  id: number;
  personId: number | null;
  event: Record<string, Json>;
  person: Record<string, Json> | null;
  groups: [Record<string, Json> | null, Record<string, Json> | null];
}

/** Static cohorts 1 and 7 as PostgreSQL holds them, and the ClickHouse history behind them (team, cohort, person, deleted, version). */
const PG_MEMBERS = [[1, 1], [1, 3], [1, 5], [7, 4]];
const CH_COHORT_HISTORY = [
  [1, 1, 1, 0, 1], [1, 1, 2, 0, 1], [1, 1, 2, 1, 2], [1, 1, 3, 1, 1], [1, 1, 3, 0, 2], [1, 1, 5, 0, 7], [2, 1, 4, 0, 1], [1, 7, 4, 0, 1],
];

export interface Evaluation {
  now: Date;
  cohorts: ReadonlyMap<number, CohortDefinition>;
  caseSensitiveExact?: boolean;
}

/** The PostgreSQL compiler over a jsonb table in a scratch database with the migration's helper functions. */
export class PostgresRows {
  private constructor(private readonly admin: Client, readonly client: Client, private readonly name: string) {}

  static async open(): Promise<PostgresRows> {
    const name = `hogbase_chfilter_${process.pid}_${Date.now().toString(36)}`;
    const admin = new Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const client = new Client({ connectionString: databaseUrl(name) });
    await client.connect();
    // The helpers exactly as the migration creates them: run its up() and keep only their statements.
    const statements: string[] = [];
    await new ManagementReads1763780500000().up({ query: async (sql: string) => void statements.push(sql) } as unknown as QueryRunner);
    for (const sql of statements.filter((s) => /CREATE FUNCTION property_/.test(s))) await client.query(sql);
    await client.query(`CREATE TABLE rows (id int PRIMARY KEY, person_id int, event jsonb NOT NULL, person jsonb, group0 jsonb, group1 jsonb)`);
    await client.query(`CREATE TABLE cohort_person (cohort_id int NOT NULL, person_id int NOT NULL)`);
    await client.query(`INSERT INTO cohort_person SELECT * FROM unnest($1::int[], $2::int[])`, [PG_MEMBERS.map((m) => m[0]), PG_MEMBERS.map((m) => m[1])]);
    return new PostgresRows(admin, client, name);
  }

  async load(rows: readonly FilterRow[]): Promise<void> {
    await this.client.query('TRUNCATE rows');
    const records = rows.map((r) => `{"id":${r.id},"person_id":${r.personId},"event":${jsonText(r.event)},"person":${r.person ? jsonText(r.person) : 'null'},`
      + `"group0":${r.groups[0] ? jsonText(r.groups[0]) : 'null'},"group1":${r.groups[1] ? jsonText(r.groups[1]) : 'null'}}`);
    await this.client.query(`INSERT INTO rows SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS x(id int, person_id int, event jsonb, person jsonb, group0 jsonb, group1 jsonb)`, [`[${records.join(',')}]`]);
  }

  /** The rows as ClickHouse receives them: jsonb's text output. */
  async asText(): Promise<Array<Record<string, unknown>>> {
    const { rows } = await this.client.query(`SELECT id, coalesce(person_id, 0) AS person_id, event::text AS event, coalesce(person, '{}')::text AS person,
      coalesce(group0, '{}')::text AS group0, coalesce(group1, '{}')::text AS group1 FROM rows ORDER BY id`);
    return rows;
  }

  async matching(node: PropertyNode | null, e: Evaluation): Promise<number[]> {
    const ctx: FilterSqlContext = {
      columns: { event: 'r.event', person: `coalesce(r.person, '{}'::jsonb)` },
      groupColumn: (i) => (i <= 1 ? `coalesce(r.group${i}, '{}'::jsonb)` : `'{}'::jsonb`),
      personId: 'r.person_id', now: e.now, cohorts: e.cohorts, caseSensitiveExact: e.caseSensitiveExact,
    };
    const params = new SqlParams();
    const sql = propertyFiltersToSql(node, ctx, params);
    const { rows } = await this.client.query(`SELECT r.id FROM rows r WHERE ${sql} ORDER BY r.id`, params.values);
    return rows.map((row: { id: number }) => row.id);
  }

  async close(): Promise<void> {
    await this.client.end();
    await this.admin.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    await this.admin.end();
  }
}

/** The ClickHouse compiler over the same rows in chdb, hot event columns as the schema defines them. */
export class ClickHouseRows {
  private constructor(readonly session: Session) {}

  static async open(): Promise<ClickHouseRows> {
    const session = new Session();
    const hot = [...HOT_EVENT_PROPERTIES].map(([key, column]) => `, ${column} Nullable(String) MATERIALIZED ${propertyTextExpression('event', key)}`).join('')
      + `, ${HOT_JSON_NULLS_COLUMN} UInt32 MATERIALIZED ${jsonNullsExpression('event')}`;
    await session.queryAsync(`CREATE TABLE rows (id Int64, person_id Int64, event String, person String, group0 String, group1 String${hot})
      ENGINE = MergeTree ORDER BY id`);
    const cohortTable = SCHEMA_MIGRATIONS[0].statements({ kind: 'single', database: 'default' }).find((s) => s.includes('cohort_person'))!;
    await session.queryAsync(cohortTable);
    const history = CH_COHORT_HISTORY.map((r) => JSON.stringify({ team_id: r[0], cohort_id: r[1], person_id: r[2], is_deleted: r[3], version: r[4] })).join('\n');
    await session.insert({ table: 'cohort_person', values: history, format: 'JSONEachRow', settings: { async_insert: 0 } });
    return new ClickHouseRows(session);
  }

  async load(rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    await this.session.queryAsync('TRUNCATE TABLE rows');
    const lines = rows.map((r) => JSON.stringify(r)).join('\n');
    await this.session.insert({ table: 'rows', values: Buffer.from(lines), format: 'JSONEachRow', settings: { async_insert: 0 } });
  }

  /**
   * The filter's rows, reading hot event properties from their columns or not, and person properties from the row
   * or as the row being among the persons a part of the tree holds for. Each row is a person of its own there (rows
   * differ in person properties where they share a person id); a row whose person has no properties is none.
   */
  async matching(node: PropertyNode | null, e: Evaluation, read: { hotColumns: boolean; personSet: boolean }): Promise<number[]> {
    const ctx: ChFilterContext = {
      columns: { event: 'event', person: 'person' },
      eventHotColumns: read.hotColumns ? hotEventColumns('') : undefined,
      groupColumn: (i) => (i <= 1 ? `group${i}` : `'{}'`),
      personId: 'person_id', teamId: 1, now: e.now, cohorts: e.cohorts, caseSensitiveExact: e.caseSensitiveExact,
      personSet: read.personSet ? { personId: 'id', persons: `(SELECT id, person AS properties FROM rows WHERE person != '{}')` } : undefined,
    };
    const params = new ChParams();
    const sql = propertyFiltersToClickHouse(node, ctx, params);
    const result = await this.session.queryBindAsync(`SELECT id FROM rows WHERE ${sql} ORDER BY id`, params.params, { format: 'JSON' });
    return result.json<{ data: Array<{ id: number }> }>().data.map((row) => Number(row.id));
  }

  close(): void {
    this.session.close();
  }
}
