import { EventLoopSlices } from '../../../common/async/event-loop-slices';
import type { AnalyticsEngine, QueryLimits } from './analytics-engine';
import type { ChSql } from './ch-sql';
import { acquireChdb, ChdbHandle, ChdbModule, ChdbSession } from './chdb-handle';
import { ChdbLanes } from './chdb-lanes';
import { asEngineError } from './clickhouse-error';
import { readSettings, setStatement, writeSettings } from './engine-settings';
import { InFlight } from './in-flight';
import { checkedColumnName, checkedTableName, jsonEachRow } from './json-rows';
import { createDatabaseStatement } from './schema/migrate-schema';
import type { SchemaLayout } from './schema/schema-migrations';

/** How long parsing a result's chunks holds the event loop before letting other requests in. */
const PARSE_SLICE_MS = 5;

export interface ChdbEngineOptions {
  chdb: ChdbModule;
  /** The process's one data directory (DATA_DIR/clickhouse). */
  path: string;
  /** Always `single`: the embedded engine is one node. Its database is this app's own. */
  layout: SchemaLayout;
  /** Sessions that reads run on side by side. */
  sessions: number;
  limits: QueryLimits;
}

/**
 * ClickHouse in this process (chdb), on a path shared with every other user in the process and in a
 * database of this app's own. Nothing runs on the event loop: reads stream on libuv threads, statements
 * and inserts run through chdb's async calls.
 *
 * Reads go through `queryStreamBind`, not `queryBindAsync`: chdb serializes every async bound query of
 * the process (two 0.3 s queries on two sessions took 0.6 s), while bound streams start in a few
 * milliseconds on this thread and then run in parallel on their sessions (0.3 s for the same two), with
 * every value still bound. Settings are set once per session: limits on the read sessions, synchronous
 * inserts on the write session.
 */
export class ChdbEngine implements AnalyticsEngine {
  readonly kind = 'embedded' as const;
  private readonly work = new InFlight();
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly handle: ChdbHandle,
    private readonly writer: ChdbSession,
    private readonly readers: ChdbLanes,
  ) {}

  static async open(options: ChdbEngineOptions): Promise<ChdbEngine> {
    const handle = await acquireChdb(options.path, options.chdb);
    const opened: ChdbSession[] = [];
    const session = (): ChdbSession => {
      opened.push(handle.openSession());
      return opened[opened.length - 1];
    };
    try {
      const writer = session();
      await writer.queryAsync(createDatabaseStatement(options.layout));
      await prepare(writer, options.layout.database, setStatement(writeSettings(options.limits)));
      const readers = Array.from({ length: options.sessions }, session);
      for (const reader of readers) await prepare(reader, options.layout.database, setStatement(readSettings(options.limits)));
      return new ChdbEngine(handle, writer, new ChdbLanes(readers));
    } catch (error) {
      for (const opening of opened) opening.close();
      await handle.release();
      throw asEngineError(error);
    }
  }

  async query<R = Record<string, unknown>>(sql: ChSql): Promise<R[]> {
    const rows: R[] = [];
    await this.queryBatches<R>(sql, (batch) => void rows.push(...batch));
    return rows;
  }

  queryBatches<R = Record<string, unknown>>(sql: ChSql, visit: (rows: R[]) => Promise<void> | void): Promise<void> {
    return this.work.run(() =>
      this.readers.run(async (session) => {
        await this.handle.outsideExclusive();
        // Chunks that are ready resolve without an event-loop turn: a large result would be parsed in one block.
        const slices = new EventLoopSlices(PARSE_SLICE_MS);
        for await (const chunk of session.queryStreamBind(sql.text, sql.params, { format: 'JSONEachRow' })) {
          await visit(chunk.rows<R>());
          if (slices.due()) await slices.nextSlice();
        }
      }),
    );
  }

  command(sql: ChSql | string): Promise<void> {
    const { text, params } = typeof sql === 'string' ? { text: sql, params: {} } : sql;
    return this.work.run(async () => {
      if (Object.keys(params).length === 0) await this.writer.queryAsync(text);
      else await this.handle.exclusive(() => this.writer.queryBindAsync(text, params));
    });
  }

  insert(table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    return this.work.run(async () => {
      if (rows.length === 0) return;
      await this.writer.insert({ table: checkedTableName(table), values: Buffer.from(jsonEachRow(rows)), format: 'JSONEachRow', settings: { async_insert: 0 } });
    });
  }

  insertTsv(table: string, columns: readonly string[], source: NodeJS.ReadableStream): Promise<void> {
    return this.work.run(async () => {
      await this.writer.insert({ table: checkedTableName(table), columns: columns.map(checkedColumnName), values: source, format: 'TabSeparated', settings: { async_insert: 0 } });
    });
  }

  /** Waits for what runs (closing a session under a running query aborts the engine for the whole process). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.work.drain();
      this.writer.close();
      for (const reader of this.readers.sessions()) reader.close();
      await this.handle.release();
    })();
    return this.closing;
  }
}

async function prepare(session: ChdbSession, database: string, settings: string): Promise<void> {
  await session.queryAsync(`USE \`${database}\``);
  await session.queryAsync(settings);
}
