import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DateTime } from 'luxon';
import { Client, Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { ApiError } from '../../common/errors/api-error';
import { likePattern } from '../../database/like-pattern';
import { isQueryTimeout, queryTimeoutError } from '../../database/query-errors';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import type { CohortDefinition } from '../events/property-filter-sql';
import type { BuiltSql } from './sql/event-scope.sql';

export const ANALYTICS_APPLICATION_NAME = 'hogbase analytics';

/** A data point row: breakdown value (or null), bucket key (or null for the whole range), value. */
export interface PointRow {
  breakdown_value: string | null;
  bucket: string | null;
  value: number | null;
}

/** An actor row of a persons page: person id or group key, and its value at the data point. */
export interface ActorRow {
  actor: string;
  value: number | null;
}

export interface GroupActor {
  groupKey: string;
  groupTypeIndex: number;
  properties: Record<string, unknown>;
  createdAt: Date;
}

/** Rows fetched from a cursor at a time: one actor's events each, for funnels and paths. */
const FETCH_ROWS = 2000;
/** How much longer than the statement timeout the client waits before it gives up on the connection. */
const CLIENT_TIMEOUT_MARGIN_MS = 5_000;
/** How long a bulk read waits for a lock (a migration's, a manual LOCK TABLE) before it gives up. */
const BULK_LOCK_TIMEOUT_MS = 5_000;
/** Patterns PostgreSQL refuses even after RE2 accepted them (see the events list). */
const PATTERN_ERRORS = new Set(['2201B', '54000', '54001']);

/**
 * Every analytic read, on its own pool: a few connections (ANALYTICS_POOL_SIZE) whose sessions are
 * read-only and carry a statement timeout (ANALYTICS_QUERY_TIMEOUT_MS), so insights never hold
 * ingestion's or flag evaluation's connections and no query runs unbounded. Events are read for
 * analytics here and nowhere else, so another store could serve the same SQL builders' model later.
 */
@Injectable()
export class AnalyticsRepository implements OnApplicationShutdown {
  private readonly logger = new Logger(AnalyticsRepository.name);
  private readonly pool: Pool;
  /** Backends running a bulk read (an in-memory copy's load), cancelled at shutdown so the pool can close. */
  private readonly bulkReads = new Set<number>();

  constructor(@InjectDataSource() dataSource: DataSource, @Inject(APP_CONFIG) private readonly config: AppConfig) {
    const shared = ((dataSource.driver as PostgresDriver).master as Pool).options;
    const { poolSize, queryTimeoutMs, parallelWorkers } = config.analytics;
    // JIT compiling cost 0.2 s per query and saved nothing on these scans; hash joins and aggregates over
    // millions of rows stay in memory instead of spilling in batches (a few connections, so bounded).
    // Parallel workers per query are a setting of their own (ANALYTICS_PARALLEL_WORKERS): they trade insight speed
    // against the cores ingestion and flag evaluation share with PostgreSQL.
    const session = [
      shared.options ?? process.env.PGOPTIONS,
      `-c statement_timeout=${queryTimeoutMs}`,
      '-c default_transaction_read_only=on',
      '-c jit=off',
      '-c work_mem=64MB',
      `-c max_parallel_workers_per_gather=${parallelWorkers}`,
    ];
    this.pool = new Pool({
      ...shared,
      max: poolSize,
      // The server's statement timeout decides; the client's own read timeout (the main pool's) only backs it up.
      query_timeout: queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
      // Waiting for a connection counts against the same budget as running the query.
      connectionTimeoutMillis: queryTimeoutMs,
      options: session.filter(Boolean).join(' '),
      application_name: shared.application_name ?? ANALYTICS_APPLICATION_NAME,
    });
    this.pool.on('error', (error) => this.logger.warn(`analytics connection lost: ${error.message}`));
  }

  async points(sql: BuiltSql): Promise<PointRow[]> {
    const rows = await this.run<PointRow>(sql);
    return rows.map((row) => ({ ...row, value: row.value === null ? null : Number(row.value) }));
  }

  /** `(value, events)` rows of a breakdown's top values. */
  breakdownValues(sql: BuiltSql): Promise<Array<{ value: string; events: string }>> {
    return this.run(sql);
  }

  async actors(sql: BuiltSql): Promise<ActorRow[]> {
    const rows = await this.run<{ actor: string | number; value: number | null }>(sql);
    return rows.map((row) => ({ actor: String(row.actor), value: row.value === null ? null : Number(row.value) }));
  }

  /** Retention persons: each actor of a cohort with the intervals they came back in. */
  async retainedActors(sql: BuiltSql): Promise<Array<{ actor: string; intervals: number[] }>> {
    const rows = await this.run<{ actor: string; intervals: number[] }>(sql);
    return rows.map((row) => ({ actor: row.actor, intervals: row.intervals.map(Number) }));
  }

  /** Rows of `(key, value)` with numeric values: stickiness counts, lifecycle counts. */
  async counts<K extends string>(sql: BuiltSql, keys: K[]): Promise<Array<Record<K, string> & { value: number }>> {
    const rows = await this.run<Record<string, unknown>>(sql);
    return rows.map((row) => ({ ...Object.fromEntries(keys.map((k) => [k, String(row[k])])), value: Number(row.value) }) as Record<K, string> & { value: number });
  }

  async earliestEventTime(projectId: number): Promise<DateTime | null> {
    const rows = await this.run<{ at: Date | null }>({ text: 'SELECT min(timestamp) AS at FROM event WHERE project_id = $1', values: [projectId] });
    return rows[0]?.at ? DateTime.fromJSDate(rows[0].at) : null;
  }

  async groupTypes(projectId: number): Promise<Map<number, string>> {
    const rows = await this.run<{ group_type: string; group_type_index: number }>({
      text: 'SELECT group_type, group_type_index FROM group_type_mapping WHERE project_id = $1',
      values: [projectId],
    });
    return new Map(rows.map((r) => [Number(r.group_type_index), r.group_type]));
  }

  async liveCohorts(projectId: number): Promise<Map<number, CohortDefinition & { name: string }>> {
    const rows = await this.run<{ id: number; name: string; is_static: boolean; filters: Record<string, unknown> }>({
      text: 'SELECT id, name, is_static, filters FROM cohort WHERE project_id = $1 AND NOT deleted',
      values: [projectId],
    });
    return new Map(rows.map((r) => [r.id, { name: r.name, isStatic: r.is_static, filters: r.filters }]));
  }

  /**
   * Which of these actors match PostHog's actor search: a person's email or name or one of their
   * distinct ids contains the text (a group's key or name for groups).
   */
  async actorsMatching(projectId: number, groupTypeIndex: number | null, ids: string[], search: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const pattern = likePattern(search, '%', '%');
    const sql =
      groupTypeIndex === null
        ? `SELECT p.id::text AS id FROM person p WHERE p.project_id = $1 AND p.id = ANY($2::bigint[])
            AND (p.properties ->> 'email' ILIKE $3 OR p.properties ->> 'name' ILIKE $3
              OR EXISTS (SELECT 1 FROM person_distinct_id d WHERE d.person_id = p.id AND d.distinct_id ILIKE $3))`
        : `SELECT g.group_key AS id FROM "group" g WHERE g.project_id = $1 AND g.group_type_index = $4 AND g.group_key = ANY($2::text[])
            AND (g.group_key ILIKE $3 OR g.properties ->> 'name' ILIKE $3)`;
    const values = groupTypeIndex === null ? [projectId, ids, pattern] : [projectId, ids, pattern, groupTypeIndex];
    const rows = await this.run<{ id: string }>({ text: sql, values });
    return rows.map((row) => row.id);
  }

  /** The properties of persons (by id) or of groups of one type (by key). */
  async actorProperties(projectId: number, groupTypeIndex: number | null, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
    if (ids.length === 0) return new Map();
    const sql =
      groupTypeIndex === null
        ? { text: 'SELECT id::text AS id, properties FROM person WHERE project_id = $1 AND id = ANY($2::bigint[])', values: [projectId, ids] }
        : { text: 'SELECT group_key AS id, properties FROM "group" WHERE project_id = $1 AND group_type_index = $3 AND group_key = ANY($2::text[])', values: [projectId, ids, groupTypeIndex] };
    const rows = await this.run<{ id: string; properties: Record<string, unknown> }>(sql);
    return new Map(rows.map((row) => [row.id, row.properties]));
  }

  async groups(projectId: number, groupTypeIndex: number, keys: string[]): Promise<GroupActor[]> {
    if (keys.length === 0) return [];
    const rows = await this.run<{ group_key: string; properties: Record<string, unknown>; created_at: Date }>({
      text: `SELECT group_key, properties, created_at FROM "group" WHERE project_id = $1 AND group_type_index = $2 AND group_key = ANY($3::text[])
              ORDER BY created_at DESC, group_key`,
      values: [projectId, groupTypeIndex, keys],
    });
    return rows.map((r) => ({ groupKey: r.group_key, groupTypeIndex, properties: r.properties, createdAt: r.created_at }));
  }

  /**
   * A large result visited row by row, read in batches of FETCH_ROWS through a server-side cursor
   * (DECLARE … FETCH, in one read-only snapshot on one analytics connection), so no request holds
   * every row at once (funnels and paths read one row per actor). Each FETCH is an ordinary statement,
   * bounded by the session's statement timeout; the first one runs the query.
   */
  forEachRow<R>(sql: BuiltSql, visit: (row: R) => void): Promise<void> {
    return this.inSnapshot(async (client) => {
      await client.query({ text: `DECLARE analytics_rows NO SCROLL CURSOR FOR ${sql.text}`, values: sql.values });
      const fetch = `FETCH ${FETCH_ROWS} FROM analytics_rows`;
      for (let rows = (await client.query(fetch)).rows as R[]; rows.length > 0; rows = (await client.query(fetch)).rows as R[]) rows.forEach(visit);
    });
  }

  /**
   * Work on one analytics connection inside one REPEATABLE READ, read-only transaction, so every statement
   * sees the same snapshot (the in-memory event copies read rows and the snapshot's horizon together).
   */
  async inSnapshot<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connect(() => this.pool.connect());
    return this.snapshot(client, work, (error) => client.release(error === undefined ? undefined : error instanceof Error ? error : true));
  }

  /**
   * The same for a bulk read (a copy's load, which may take minutes), on a connection of its own with its own
   * statement timeout: outside the pool, so insights keep their connections, and without the pool's
   * client-side read timeout, which a COPY stream never clears. Shutdown cancels it (see bulkReads).
   */
  async inBulkSnapshot<T>(work: (client: PoolClient) => Promise<T>, timeoutMs: number): Promise<T> {
    const client = await this.connect(() => this.bulkClient());
    const backend = (client as unknown as { processID: number }).processID;
    this.bulkReads.add(backend);
    try {
      return await this.snapshot(client as unknown as PoolClient, async (inside) => {
        await inside.query(`SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`);
        // A bulk read waits for no one's lock for long: it fails, and PostgreSQL answers meanwhile.
        await inside.query(`SET LOCAL lock_timeout = ${BULK_LOCK_TIMEOUT_MS}`);
        return work(inside);
      }, () => client.end().catch(() => undefined));
    } finally {
      this.bulkReads.delete(backend);
    }
  }

  private async connect<C>(open: () => Promise<C>): Promise<C> {
    try {
      return await open();
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** `work` in a read-only REPEATABLE READ transaction on `client`, then `done` gives the connection up. */
  private async snapshot<T>(client: PoolClient, work: (client: PoolClient) => Promise<T>, done: (error?: unknown) => unknown): Promise<T> {
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await work(client);
      await client.query('COMMIT');
      await done();
      return result;
    } catch (error) {
      // The connection may be mid-statement (a client-side timeout): it is closed rather than given back.
      await client.query('ROLLBACK').catch(() => undefined);
      await done(error);
      throw this.translate(error);
    }
  }

  private async bulkClient(): Promise<Client> {
    const { query_timeout: _readTimeout, ...options } = this.pool.options;
    const client = new Client(options);
    client.on('error', (error) => this.logger.warn(`analytics bulk read connection lost: ${error.message}`));
    await client.connect();
    return client;
  }

  private async run<R>(sql: BuiltSql): Promise<R[]> {
    try {
      return (await this.pool.query({ text: sql.text, values: sql.values })).rows as R[];
    } catch (error) {
      throw this.translate(error);
    }
  }

  private translate(error: unknown): unknown {
    const code = (error as { code?: string }).code;
    const { queryTimeoutMs } = this.config.analytics;
    if (isQueryTimeout(error)) {
      return queryTimeoutError({ what: 'analytics query', ms: queryTimeoutMs, variable: 'ANALYTICS_QUERY_TIMEOUT_MS', advice: 'narrow the date range, the filters or the breakdown' });
    }
    if (code && PATTERN_ERRORS.has(code)) return ApiError.validation('Invalid regular expression in property filters.', 'properties');
    if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message)) {
      return ApiError.unavailable(`Every analytics connection (ANALYTICS_POOL_SIZE) stayed busy for ${queryTimeoutMs} ms: try again shortly.`);
    }
    return error;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.bulkReads.size > 0) await this.cancelBulkReads();
    await this.pool.end();
  }

  /** A load may run for minutes: its statement is cancelled (from a connection of its own) instead of awaited. */
  private async cancelBulkReads(): Promise<void> {
    const client = new Client(this.pool.options);
    try {
      await client.connect();
      await client.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [[...this.bulkReads]]);
    } catch (error) {
      this.logger.warn(`analytics bulk reads could not be cancelled at shutdown: ${(error as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
