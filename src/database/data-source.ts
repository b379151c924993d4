import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';

/**
 * One definition of the TypeORM connection, shared by the app, the CLI and the tests. The entities come from the caller
 * (the root module lists the modules' entities); migrations are plain SQL and need none.
 */
export function dataSourceOptions(url: string, poolSize = 10, entities: DataSourceOptions['entities'] = []): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    // Schema changes happen through migrations only, never by TypeORM's synchronize.
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 2000,
      // Keep a dead database from hanging requests: fail the query, let callers answer 503. It does not stop the query
      // on the server, so MANAGEMENT_QUERY_TIMEOUT_MS is capped below it (config) and the server's timeout comes first.
      query_timeout: 30000,
    },
  };
}

/** An arbitrary constant that identifies "migrations in progress" among advisory locks. */
const MIGRATION_LOCK_KEY = 7_263_001;

/** Runs pending migrations under an advisory lock so that several processes can boot at once. */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource({ ...dataSourceOptions(url, 2) });
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
    await dataSource.destroy();
  }
}
