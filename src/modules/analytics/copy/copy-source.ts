import { Client, ClientConfig } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Readable } from 'node:stream';

/** How long a copy read waits for a lock (a migration's, a manual LOCK TABLE) before the refresh gives up and retries later. */
const LOCK_TIMEOUT_MS = 5_000;

/**
 * The PostgreSQL side of one copy refresh: a connection of its own (never one of the pools ingestion,
 * flags or the management API use) holding a session advisory lock, so that one refresh at a time writes
 * to a given ClickHouse database whatever the number of processes, and reading everything of one refresh
 * in one REPEATABLE READ snapshot.
 */
export class CopySource {
  private constructor(private readonly client: Client) {}

  /** Connects and waits for the copy's lock (`lockKey`: one per ClickHouse database). */
  static async open(options: ClientConfig, lockKey: string, statementTimeoutMs: number): Promise<CopySource> {
    // Without the pool's client-side read timeout, which a COPY stream never clears: the server's statement timeout decides.
    const { query_timeout: _readTimeout, ...own } = options as ClientConfig & { query_timeout?: number };
    const client = new Client({ ...own, application_name: 'hogbase analytics copy' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.query(`SET statement_timeout = ${Math.trunc(statementTimeoutMs)}`);
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
      await client.query(`SET lock_timeout = ${LOCK_TIMEOUT_MS}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return new CopySource(client);
  }

  /** Starts the snapshot and answers its horizon: every transaction below it has ended. */
  async beginSnapshot(): Promise<string> {
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = await this.client.query<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin');
    return rows[0].xmin;
  }

  async endSnapshot(): Promise<void> {
    await this.client.query('COMMIT');
  }

  rows<R>(text: string, values: unknown[] = []): Promise<R[]> {
    return this.client.query(text, values).then((result) => result.rows as R[]);
  }

  /** A COPY … TO STDOUT statement's text output, as a stream. */
  copyOut(sql: string): Readable {
    const stream = this.client.query(copyTo(sql));
    // Its reader sees a failure; one left unread (the insert failed first) must not fail the process.
    stream.on('error', () => undefined);
    return stream;
  }

  /** Releases the lock by closing the session (a lock outlives nothing but its session). */
  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
