import { ClickHouseClient, ClickHouseLogLevel, ClickHouseSettings, createClient } from '@clickhouse/client';
import type { AnalyticsEngine, QueryLimits } from './analytics-engine';
import type { ChSql } from './ch-sql';
import { asEngineError, CLICKHOUSE_CODES, ClickHouseEngineError } from './clickhouse-error';
import { InFlight } from './in-flight';
import { nonEmpty } from './tsv-chunks';
import { ChSettings, readSettings, writeSettings } from './engine-settings';
import { checkedColumnName, checkedTableName, stringifyJson } from './json-rows';
import { createDatabaseStatement } from './schema/migrate-schema';
import type { SchemaLayout } from './schema/schema-migrations';

export interface HttpEngineOptions {
  /** `http(s)://[user:password@]host:port`, as CLICKHOUSE_URL gives it. */
  url: string;
  layout: SchemaLayout;
  limits: QueryLimits;
}

/** How long past the server's own time limit a read may go before the client gives up on it. */
const READ_GRACE_MS = 5_000;
/** Statements and inserts carry no time limit (the copy's INSERT … SELECT may run long); the socket does. */
const WRITE_TIMEOUT_MS = 10 * 60_000;

/**
 * ClickHouse over its HTTP interface (@clickhouse/client): a server or a cluster, in the service's database.
 * Values are bound as the interface's `param_<name>` arguments; settings travel with each request.
 * `wait_end_of_query` makes the server answer only when the statement has finished, so a failure is an
 * HTTP error with its ClickHouse code rather than a 200 whose body breaks off.
 */
export class HttpEngine implements AnalyticsEngine {
  readonly kind = 'server' as const;
  private readonly work = new InFlight();
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly limits: QueryLimits,
  ) {}

  /** Creates the database first, on a client that names none (a server refuses requests for a missing one). */
  static async open(options: HttpEngineOptions): Promise<HttpEngine> {
    const bootstrap = connect(options.url, undefined, options.limits);
    try {
      await bootstrap.command({ query: createDatabaseStatement(options.layout), clickhouse_settings: settings(writeSettings(options.limits)) });
    } catch (error) {
      throw asEngineError(error);
    } finally {
      await bootstrap.close();
    }
    return new HttpEngine(connect(options.url, options.layout.database, options.limits), options.limits);
  }

  async query<R = Record<string, unknown>>(sql: ChSql): Promise<R[]> {
    const rows: R[] = [];
    await this.queryBatches<R>(sql, (batch) => void rows.push(...batch));
    return rows;
  }

  queryBatches<R = Record<string, unknown>>(sql: ChSql, visit: (rows: R[]) => Promise<void> | void): Promise<void> {
    return this.work.run(async () => {
      const signal = AbortSignal.timeout(this.limits.timeoutMs + READ_GRACE_MS);
      try {
        const result = await this.client.query({ query: sql.text, query_params: sql.params, format: 'JSONEachRow', clickhouse_settings: settings(readSettings(this.limits)), abort_signal: signal });
        for await (const batch of result.stream<R>()) await visit(batch.map((row) => row.json<R>()));
      } catch (error) {
        // The server did not stop the query at its limit (or could not be heard): the reader's time is up all the same.
        if (signal.aborted) throw new ClickHouseEngineError(`ClickHouse did not answer within ${this.limits.timeoutMs + READ_GRACE_MS} ms.`, CLICKHOUSE_CODES.TIMEOUT_EXCEEDED, { cause: error });
        throw error;
      }
    });
  }

  command(sql: ChSql | string): Promise<void> {
    const { text, params } = typeof sql === 'string' ? { text: sql, params: {} } : sql;
    return this.work.run(async () => {
      await this.client.command({ query: text, query_params: params, clickhouse_settings: settings(writeSettings(this.limits)) });
    });
  }

  insert(table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    return this.work.run(async () => {
      if (rows.length === 0) return;
      await this.client.insert({ table: checkedTableName(table), values: [...rows], format: 'JSONEachRow', clickhouse_settings: settings(writeSettings(this.limits)) });
    });
  }

  insertTsv(table: string, columns: readonly string[], source: NodeJS.ReadableStream): Promise<void> {
    return this.work.run(async () => {
      const values = await nonEmpty(source);
      if (!values) return;
      await this.client.insert({
        table: checkedTableName(table), columns: columns.map(checkedColumnName) as [string, ...string[]], values, format: 'TabSeparated',
        clickhouse_settings: settings(writeSettings(this.limits)),
      });
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.work.drain();
      await this.client.close();
    })();
    return this.closing;
  }
}

function settings(values: ChSettings): ClickHouseSettings {
  return { ...values, wait_end_of_query: 1 } as ClickHouseSettings;
}

function connect(url: string, database: string | undefined, limits: QueryLimits): ClickHouseClient {
  return createClient({
    url,
    database,
    request_timeout: Math.max(WRITE_TIMEOUT_MS, limits.timeoutMs + READ_GRACE_MS),
    compression: { request: true, response: true },
    json: { parse: JSON.parse, stringify: stringifyJson },
    // Failures reach the caller as errors; the client's own console logging would only repeat them.
    log: { level: ClickHouseLogLevel.OFF },
  });
}
