import { Client, ClientConfig } from 'pg';
import { TurnTaking } from '../../../common/async/turn-taking';
import { to as copyTo } from 'pg-copy-streams';
import type { Readable } from 'node:stream';

/**
 * How long a copy read waits for a lock (a migration's, a manual LOCK TABLE, another process's refresh of
 * the same copy) before the refresh gives up; insights then answer from the copy as it stands.
 */
const LOCK_TIMEOUT_MS = 5_000;

/**
 * The PostgreSQL side of the copy: one connection of its own (never one of the pools ingestion, flags or
 * the management API use), kept open between refreshes, on which each refresh holds a session advisory
 * lock (one per ClickHouse database, so one refresh at a time writes to a copy whatever the number of
 * processes) and reads everything in one REPEATABLE READ snapshot. After a failure the connection is
 * closed (which also ends its transaction and lock) and the next refresh opens another.
 */
export class CopySource {
  private client: Client | null = null;
  /** `locked` calls of this process, one after another. */
  private readonly turns = new TurnTaking();

  constructor(
    private readonly options: ClientConfig,
    private readonly lockKey: string,
    private readonly statementTimeoutMs: number,
  ) {}

  /**
   * `work` with the copy's lock held, one at a time in this process too: a session's advisory lock is
   * re-entrant, so a rebuild asked for here (the CLI) and the timer's refresh would otherwise both hold it, and
   * interleave their statements on the one connection.
   */
  locked<T>(work: () => Promise<T>): Promise<T> {
    return this.turns.run(async () => {
      const client = await this.connection();
      try {
        await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [this.lockKey]);
        const result = await work();
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [this.lockKey]);
        return result;
      } catch (error) {
        await this.close();
        throw error;
      }
    });
  }

  /** Starts the snapshot and answers its horizon: every transaction below it has ended. */
  async beginSnapshot(): Promise<string> {
    const client = await this.connection();
    // Not read-only: the refresh records its batch number in analytics_copy inside it.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const { rows } = await client.query<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
    return rows[0].xmin;
  }

  async endSnapshot(): Promise<void> {
    await (await this.connection()).query('COMMIT');
  }

  async rows<R>(text: string, values: unknown[] = []): Promise<R[]> {
    return (await (await this.connection()).query(text, values)).rows as R[];
  }

  /** A COPY … TO STDOUT statement's text output, as a stream (on the open connection: inside the snapshot). */
  copyOut(sql: string): Readable {
    if (!this.client) throw new Error('the copy source is not connected');
    const stream = this.client.query(copyTo(sql));
    // Its reader sees a failure; one left unread (the insert failed first) must not fail the process.
    stream.on('error', () => undefined);
    return stream;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connection(): Promise<Client> {
    if (this.client) return this.client;
    // Without the pool's client-side read timeout, which a COPY stream never clears: the server's statement timeout decides.
    const { query_timeout: _readTimeout, ...own } = this.options as ClientConfig & { query_timeout?: number };
    const client = new Client({ ...own, application_name: 'hogbase analytics copy' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`SET statement_timeout = ${Math.trunc(this.statementTimeoutMs)}`);
      await client.query(`SET lock_timeout = ${LOCK_TIMEOUT_MS}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    return client;
  }
}
