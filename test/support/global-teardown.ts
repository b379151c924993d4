import { Client } from 'pg';
import { runId, TEST_POSTGRES_URL } from './test-env';

/** Drops every database this run made. */
export default async function globalTeardown(): Promise<void> {
  if (!process.env.HOGBASE_TEST_RUN) return;
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
  delete process.env.HOGBASE_TEST_RUN;
}
