import { Client } from 'pg';
import IORedis from 'ioredis';
import { runMigrations } from '../../src/database/data-source';
import { databaseUrl, TEST_POSTGRES_URL, TEST_REDIS_URL, templateDatabaseName } from './test-env';

/** One migrated template database per run; each test file clones it (CREATE DATABASE … TEMPLATE). */
export default async function globalSetup(): Promise<void> {
  // Jest runs this once per project that names it; the first run prepares everything.
  if (process.env.HOGBASE_TEST_RUN) return;
  process.env.HOGBASE_TEST_RUN = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const admin = new Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`The e2e tests need PostgreSQL at ${TEST_POSTGRES_URL} (set TEST_DATABASE_URL): ${String(error)}`);
  }
  const redis = new IORedis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`The e2e tests need Redis at ${TEST_REDIS_URL} (set TEST_REDIS_URL): ${String(error)}`);
  } finally {
    redis.disconnect();
  }
  const template = templateDatabaseName();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  await runMigrations(databaseUrl(template));
}
