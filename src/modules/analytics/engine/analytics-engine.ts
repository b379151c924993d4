import type { ChSql } from './ch-sql';

/** Per-query limits: every analytic read carries them, so no insight runs unbounded or starves ingestion. */
export interface QueryLimits {
  timeoutMs: number;
  maxThreads: number;
  maxMemoryBytes: number;
  /** The nice value of ClickHouse's threads for reads and writes alike (0: as started). */
  threadPriority: number;
}

/**
 * The one door to ClickHouse, whatever runs it: the embedded engine (chdb, in this process) or a server
 * or cluster (`CLICKHOUSE_URL`, through @clickhouse/client). Insights, the copy and the schema
 * migrations speak only to this interface and send the same SQL to either.
 */
export interface AnalyticsEngine {
  /** `embedded` (chdb), `server` (CLICKHOUSE_URL), or `unavailable` (every call answers 503). */
  readonly kind: 'embedded' | 'server' | 'unavailable';
  /**
   * Rows of a SELECT as objects (JSONEachRow), with the analytic query limits applied. 64-bit integers come
   * as JSON numbers: cast ids and counts that can pass 2^53 to String in the SQL.
   */
  query<R = Record<string, unknown>>(sql: ChSql): Promise<R[]>;
  /**
   * The rows of {@link query}, handed to `visit` a batch at a time as they arrive, each batch visited before the
   * next is read: a result of a million rows (one per actor) is never held whole, so it costs no long garbage
   * collection on the thread that serves capture.
   */
  queryBatches<R = Record<string, unknown>>(sql: ChSql, visit: (rows: R[]) => Promise<void> | void): Promise<void>;
  /** A statement without rows (DDL, DELETE, INSERT … SELECT), without the analytic limits. */
  command(sql: ChSql | string): Promise<void>;
  /** Rows appended to a table; resolves once they are readable (synchronous insert). */
  insert(table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void>;
  /**
   * Rows streamed into a table as TabSeparated text (PostgreSQL's COPY text output is that format:
   * `\N` for NULL, backslash escapes), resolving once they are readable.
   */
  insertTsv(table: string, columns: readonly string[], source: NodeJS.ReadableStream): Promise<void>;
  close(): Promise<void>;
}

export const ANALYTICS_ENGINE = Symbol('ANALYTICS_ENGINE');
