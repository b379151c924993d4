import type { AnalyticsEngine } from '../analytics-engine';
import { onCluster, SCHEMA_MIGRATIONS, SchemaLayout, SchemaMigration, wholeEngine } from './schema-migrations';

/**
 * The statement that creates the service's database. Engines run it when they open, before anything else:
 * a server refuses every request that names a database it does not have, the schema runner's included.
 */
export function createDatabaseStatement(layout: SchemaLayout): string {
  return `CREATE DATABASE IF NOT EXISTS \`${layout.database}\`${onCluster(layout)}`;
}

/** The record of applied migrations: one row per version (a version may appear twice after a crash; read DISTINCT). */
export function migrationsTableStatement(layout: SchemaLayout): string {
  return `CREATE TABLE IF NOT EXISTS schema_migrations${onCluster(layout)} (
  version UInt32, name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
) ENGINE = ${wholeEngine(layout, 'MergeTree', 'schema_migrations')} ORDER BY version`;
}

/** The migrations not yet recorded, in version order. */
export function pendingMigrations(migrations: readonly SchemaMigration[], applied: ReadonlySet<number>): SchemaMigration[] {
  return [...migrations].sort((a, b) => a.version - b.version).filter((migration) => !applied.has(migration.version));
}

/**
 * Applies the pending schema migrations in version order and records each once all its statements ran,
 * so a run that stops halfway repeats only the unrecorded migration (every statement is `IF NOT EXISTS`).
 * One process runs it at boot: the single process, or the primary of an API cluster. Returns the versions
 * applied.
 */
export async function migrateSchema(
  engine: AnalyticsEngine,
  layout: SchemaLayout,
  migrations: readonly SchemaMigration[] = SCHEMA_MIGRATIONS,
): Promise<number[]> {
  await engine.command(migrationsTableStatement(layout));
  const rows = await engine.query<{ version: number }>({ text: 'SELECT DISTINCT version FROM schema_migrations', params: {} });
  const pending = pendingMigrations(migrations, new Set(rows.map((row) => Number(row.version))));
  for (const migration of pending) {
    for (const statement of migration.statements(layout)) await engine.command(statement);
    await engine.insert('schema_migrations', [{ version: migration.version, name: migration.name }]);
  }
  return pending.map((migration) => migration.version);
}
