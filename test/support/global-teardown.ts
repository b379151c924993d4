import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { runId, TEST_POSTGRES_URL, TEST_REDIS_URL } from './test-env';

/** Queue prefixes that process and fault tests give their services (`<name><runId>`). */
const RUN_PREFIXES = ['hbproc', 'hbkill', 'hbcopykill', 'hbpgdown', 'hbcluster', 'hbathread', 'hbbombs'];

async function dropDatabases(): Promise<void> {
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `hogbase_t${runId()}_%`,
    ]);
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Services started as separate processes cannot clean their queues themselves; their keys go here. */
async function deleteRunQueues(): Promise<void> {
  const redis = new IORedis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    for (const name of RUN_PREFIXES) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${name}${runId()}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } catch {
    // Redis gone (a fault test stopped its own, never this one): nothing to clean.
  } finally {
    redis.disconnect();
  }
}

/** Drops every database and queue this run made. */
/** The test processes' embedded ClickHouse directories (see testDataDir). */
function removeDataDirs(): void {
  const prefix = `hogbase-t${runId()}-`;
  for (const name of readdirSync(tmpdir())) if (name.startsWith(prefix)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
}

export default async function globalTeardown(): Promise<void> {
  if (!process.env.HOGBASE_TEST_RUN) return;
  await dropDatabases();
  await deleteRunQueues();
  removeDataDirs();
  delete process.env.HOGBASE_TEST_RUN;
}
