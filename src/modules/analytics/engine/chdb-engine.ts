import type { AnalyticsEngine, QueryLimits } from './analytics-engine';
import type { ChSql } from './ch-sql';
import { acquireChdb, ChdbHandle, ChdbModule, ChdbSession } from './chdb-handle';
import { ChdbLanes } from './chdb-lanes';
import { asEngineError } from './clickhouse-error';
import { readSettings, setStatement, writeSettings } from './engine-settings';
import { EngineThreadNiceness } from './engine-thread-niceness';
import { IDLE_MEMORY_RETURN_MS, IdleMemoryReturn } from './idle-memory-return';
import { InFlight } from './in-flight';
import { ReadThreads, readThreadsBesideWork } from './work-beside';
import { checkedColumnName, checkedTableName, jsonEachRow } from './json-rows';
import { createDatabaseStatement } from './schema/migrate-schema';
import type { SchemaLayout } from './schema/schema-migrations';

export interface ChdbEngineOptions {
  chdb: ChdbModule;
  /** The process's one data directory (DATA_DIR/clickhouse). */
  path: string;
  /** Always `single`: the embedded engine is one node. Its database is this app's own. */
  layout: SchemaLayout;
  /** Per-actor reads that stream at once, a session each (`query` reads have a session of their own). */
  sessions: number;
  limits: QueryLimits;
  /** How long it waits, idle, before returning freed memory (IDLE_MEMORY_RETURN_MS unless a test says). */
  idleMemoryReturnMs?: number;
  /** How many threads each read may use (all of `limits.maxThreads` unless other work runs on the machine, unless a test says). */
  readThreads?: ReadThreads;
}

/**
 * ClickHouse in this process (chdb), on a path shared with every other user in the process and in a
 * database of this app's own, every value bound. Two ways to read, for two kinds of result:
 * - `query` (points, counts, one page of actors: small answers) runs through `queryBindAsync`, entirely on a
 *   libuv thread. chdb runs the async bound queries of a process one at a time, so these reads queue behind
 *   each other; on the event loop they cost nothing, which is what keeps capture's latency flat beside them
 *   (a bound stream parses and plans its query on the calling thread: 10–20 ms of event loop per query at
 *   10 M events, enough to triple capture's p99 beside two trend loops).
 * - `queryBatches` (a row per actor for event-property correlation, or per selected actor for some persons pages)
 *   streams through `queryStreamBind`, a chunk at a time, since such results are too large to hold whole, on
 *   sessions of their own (CLICKHOUSE_EMBEDDED_SESSIONS, one by default): the process parses and evaluates every row, seconds of event
 *   loop over a million actors, so two at once only take turns on the event loop and hold capture behind both
 *   (capture's p50 beside two such loops: 160 ms, against 9 ms with one at a time and as many answered). Its
 *   start is the one piece on the event loop.
 * Statements and inserts run through chdb's async calls on a session of their own. Settings are set once per
 * session: limits on the read sessions, synchronous inserts on the write session. Once nothing has run for a
 * moment, the memory the statements freed goes back to the system ({@link IdleMemoryReturn}); ClickHouse's threads
 * run below Node's, with or without the privilege ClickHouse asks for to do it itself ({@link EngineThreadNiceness});
 * and while other work runs on the machine, reads leave it a core ({@link readThreadsBesideWork}).
 */
export class ChdbEngine implements AnalyticsEngine {
  readonly kind = 'embedded' as const;
  private readonly work = new InFlight();
  private readonly memory: IdleMemoryReturn;
  private readonly niceness: EngineThreadNiceness;
  /** Each read session's `max_threads` as last set. */
  private readonly sessionThreads = new Map<ChdbSession, number>();
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly handle: ChdbHandle,
    private readonly writer: ChdbSession,
    /** The session `query` reads run on (chdb runs them one at a time anyway). */
    private readonly reader: ChdbLanes,
    /** The sessions per-actor reads stream on. */
    private readonly streams: ChdbLanes,
    idleMemoryReturnMs: number,
    private readonly limits: QueryLimits,
    private readonly threads: ReadThreads,
  ) {
    this.niceness = new EngineThreadNiceness(limits.threadPriority);
    this.memory = new IdleMemoryReturn(() => this.work.run(() => this.writer.queryAsync('SYSTEM JEMALLOC PURGE')), idleMemoryReturnMs);
  }

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
      const readers = Array.from({ length: 1 + options.sessions }, session);
      for (const reader of readers) await prepare(reader, options.layout.database, setStatement(readSettings(options.limits)));
      const threads = options.readThreads ?? readThreadsBesideWork(options.limits.maxThreads);
      return new ChdbEngine(handle, writer, new ChdbLanes(readers.slice(0, 1)), new ChdbLanes(readers.slice(1)), options.idleMemoryReturnMs ?? IDLE_MEMORY_RETURN_MS, options.limits, threads);
    } catch (error) {
      for (const opening of opened) opening.close();
      await handle.release();
      throw asEngineError(error);
    }
  }

  query<R = Record<string, unknown>>(sql: ChSql): Promise<R[]> {
    return this.run(() =>
      this.reader.run(async (session) => {
        await this.useThreads(session);
        // Bound async calls share chdb's parameter state with bound streams: kept apart like bound statements.
        const result = await this.handle.exclusive(() => withCleanOutput(session, () => session.queryBindAsync(sql.text, sql.params, { format: 'JSON' })));
        return result.json<{ data: R[] }>().data;
      }),
    );
  }

  queryBatches<R = Record<string, unknown>>(sql: ChSql, visit: (rows: R[]) => Promise<void> | void): Promise<void> {
    return this.run(() =>
      this.streams.run(async (session) => {
        await this.useThreads(session);
        await this.handle.outsideExclusive();
        for await (const chunk of session.queryStreamBind(sql.text, sql.params, { format: 'JSONEachRow' })) await visit(chunk.rows<R>());
      }),
    );
  }

  command(sql: ChSql | string): Promise<void> {
    const { text, params } = typeof sql === 'string' ? { text: sql, params: {} } : sql;
    return this.run(async () => {
      if (Object.keys(params).length === 0) await this.writer.queryAsync(text);
      else await this.handle.exclusive(() => this.writer.queryBindAsync(text, params));
    });
  }

  insert(table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    return this.run(async () => {
      if (rows.length === 0) return;
      await this.writer.insert({ table: checkedTableName(table), values: Buffer.from(jsonEachRow(rows)), format: 'JSONEachRow', settings: { async_insert: 0 } });
    });
  }

  insertTsv(table: string, columns: readonly string[], source: NodeJS.ReadableStream): Promise<void> {
    return this.run(async () => {
      await this.writer.insert({ table: checkedTableName(table), columns: columns.map(checkedColumnName), values: source, format: 'TabSeparated', settings: { async_insert: 0 } });
    });
  }

  /**
   * Every statement: awaited by `close`, the memory it frees returned once nothing has run for a moment, and the
   * threads ClickHouse started for it lowered below Node's.
   */
  private run<T>(statement: () => Promise<T>): Promise<T> {
    this.memory.busy();
    this.niceness.sweep();
    const running = this.work.run(statement);
    const settled = () => {
      this.niceness.sweep();
      if (this.work.idle) this.memory.idle();
    };
    running.then(settled, settled);
    return running;
  }

  /** Sets the read session's `max_threads` to what the next read may use, when it changed (a session keeps it). */
  private async useThreads(session: ChdbSession): Promise<void> {
    const threads = this.threads.next();
    if ((this.sessionThreads.get(session) ?? this.limits.maxThreads) === threads) return;
    await session.queryAsync(`SET max_threads = ${threads}`);
    this.sessionThreads.set(session, threads);
  }

  /** Waits for what runs (closing a session under a running query aborts the engine for the whole process). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.memory.cancel();
      this.threads.close();
      await this.work.drain();
      this.writer.close();
      for (const reader of [...this.reader.sessions(), ...this.streams.sessions()]) reader.close();
      await this.handle.release();
    })();
    return this.closing;
  }
}

async function prepare(session: ChdbSession, database: string, settings: string): Promise<void> {
  await session.queryAsync(`USE \`${database}\``);
  await session.queryAsync(settings);
}

/**
 * Runs a read and, when it fails, one trivial read on the same session before the error goes on: chdb keeps what an
 * async read that failed midway had already written (a memory limit hit after the first blocks) and hands it to the
 * session's next async read, whose answer then does not parse. (Streamed reads start clean.)
 */
async function withCleanOutput<T>(session: ChdbSession, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    await session.queryAsync('SELECT 1').catch(() => undefined);
    throw error;
  }
}
