import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/** Where the suite finds its real services. Overridable for machines whose servers live elsewhere. */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What the suite's services are started with as METRICS_TOKEN when a test scrapes /metrics (it is off without one). */
export const TEST_METRICS_TOKEN = 'hogbase-test-metrics-token-0123456789';

/** The compiled payload worker's thread (`npm test` builds dist/ first): the sources run it as production does. */
export const PAYLOAD_WORKER_SCRIPT = join(__dirname, '..', '..', 'dist', 'modules', 'ingestion', 'payload', 'payload.worker.js');

/** Names shared by the global setup and every test file of one run. */
export function runId(): string {
  const id = process.env.HOGBASE_TEST_RUN;
  if (!id) throw new Error('HOGBASE_TEST_RUN is not set: run the e2e tests through jest (global setup).');
  return id;
}

export function templateDatabaseName(): string {
  return `hogbase_t${runId()}_template`;
}

export function databaseUrl(name: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A database of this run with no schema (a service started on it migrates it), dropped by the global
 * teardown with the run's others; its URL.
 */
export async function createEmptyDatabase(suffix: string): Promise<string> {
  const name = `hogbase_t${runId()}_${suffix}`;
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(name);
}

/**
 * The embedded ClickHouse engine allows one data directory per process and one process per directory:
 * each test process (a jest worker) gets its own, and each app in it its own ClickHouse database
 * (`clickHouseDatabase`), as each gets its own PostgreSQL database.
 */
export function testDataDir(): string {
  return join(tmpdir(), `hogbase-t${runId()}-${process.pid}`);
}

/** The ClickHouse database of an app on the PostgreSQL database at `url` (same name). */
export function clickHouseDatabase(url: string): string {
  return new URL(url).pathname.slice(1);
}
