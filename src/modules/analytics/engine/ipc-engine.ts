import type { AnalyticsEngine } from './analytics-engine';
import type { ChSql } from './ch-sql';
import { ClickHouseEngineError } from './clickhouse-error';
import { decodeError, decodeValue, encodeRequest, EngineOperation, EngineRequest, isEngineReply } from './ipc-messages';
import { tsvChunks } from './tsv-chunks';

/** The child's end of its IPC channel to the primary (process.send / 'message' in a cluster child). */
export interface IpcChannel {
  send(message: EngineRequest): void;
  /** Subscribes to incoming messages and to the channel's end; returns the unsubscribe. */
  listen(onMessage: (message: unknown) => void, onClose: () => void): () => void;
}

/** This process's channel to the process that forked it. */
export function parentChannel(): IpcChannel {
  return {
    send(message) {
      if (!process.send) throw new Error('this process has no parent to forward to');
      process.send(message);
    },
    listen(onMessage, onClose) {
      process.on('message', onMessage);
      process.on('disconnect', onClose);
      return () => {
        process.off('message', onMessage);
        process.off('disconnect', onClose);
      };
    },
  };
}

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  settled: Promise<unknown>;
}

/**
 * An HTTP child's engine in an API cluster without CLICKHOUSE_URL: the embedded engine admits one process
 * per data directory, so the primary owns it and this forwards each call there, matched by request id.
 * A failure comes back with its ClickHouse code, and the child translates it as it would the engine's own.
 */
export class IpcEngine implements AnalyticsEngine {
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 0;
  private readonly stopListening: () => void;
  private primaryKind: AnalyticsEngine['kind'] = 'embedded';

  private constructor(private readonly channel: IpcChannel) {
    this.stopListening = channel.listen(
      (message) => this.onMessage(message),
      () => this.failAll('The primary process that runs the analytics engine has gone.'),
    );
  }

  /** Connects and learns which engine the primary runs (an unavailable one answers every call with its 503). */
  static async connect(channel: IpcChannel = parentChannel()): Promise<IpcEngine> {
    const engine = new IpcEngine(channel);
    engine.primaryKind = (await engine.call({ op: 'describe' })) as AnalyticsEngine['kind'];
    return engine;
  }

  get kind(): AnalyticsEngine['kind'] {
    return this.primaryKind;
  }

  query<R = Record<string, unknown>>(sql: ChSql): Promise<R[]> {
    return this.call({ op: 'query', sql }) as Promise<R[]>;
  }

  /** The primary answers a read in one message; its rows are visited as one batch. */
  async queryBatches<R = Record<string, unknown>>(sql: ChSql, visit: (rows: R[]) => Promise<void> | void): Promise<void> {
    await visit(await this.query<R>(sql));
  }

  async command(sql: ChSql | string): Promise<void> {
    await this.call({ op: 'command', sql: typeof sql === 'string' ? { text: sql, params: {} } : sql });
  }

  async insertTsv(table: string, columns: readonly string[], source: NodeJS.ReadableStream): Promise<void> {
    for await (const chunk of tsvChunks(source)) await this.call({ op: 'insertTsv', table, columns: [...columns], text: chunk.toString('utf8') });
  }

  async insert(table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    await this.call({ op: 'insert', table, rows });
  }

  /** Waits for the answers still due, then stops listening; the engine itself is the primary's to close. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.waiting.values()].map((waiter) => waiter.settled));
    this.stopListening();
  }

  private call(operation: EngineOperation): Promise<unknown> {
    const id = this.nextId++;
    const waiter = {} as Waiter;
    waiter.settled = new Promise((resolve, reject) => Object.assign(waiter, { resolve, reject }));
    this.waiting.set(id, waiter);
    try {
      this.channel.send(encodeRequest(id, operation));
    } catch (error) {
      this.waiting.delete(id);
      waiter.reject(error as Error);
    }
    return waiter.settled;
  }

  private onMessage(message: unknown): void {
    if (!isEngineReply(message)) return;
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    if (message.ok) waiter.resolve(decodeValue(message.result));
    else waiter.reject(decodeError(message.error));
  }

  private failAll(reason: string): void {
    for (const [id, waiter] of this.waiting) {
      this.waiting.delete(id);
      waiter.reject(new ClickHouseEngineError(reason, null));
    }
  }
}
