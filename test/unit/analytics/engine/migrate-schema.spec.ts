import type { AnalyticsEngine } from '../../../../src/modules/analytics/engine/analytics-engine';
import { ChdbEngine } from '../../../../src/modules/analytics/engine/chdb-engine';
import { createDatabaseStatement, migrateSchema, migrationsTableStatement } from '../../../../src/modules/analytics/engine/schema/migrate-schema';
import { SCHEMA_MIGRATIONS, SchemaLayout, SchemaMigration } from '../../../../src/modules/analytics/engine/schema/schema-migrations';
import { engineDirectory, LIMITS, requireChdb } from './engine-test-support';

const SINGLE: SchemaLayout = { kind: 'single', database: 'hogbase' };
const CLUSTER: SchemaLayout = { kind: 'cluster', cluster: 'posthog', database: 'hogbase' };

/** Every statement the cluster layout runs, in order: the database, the record, then each migration's. */
function clusterStatements(): string[] {
  return [createDatabaseStatement(CLUSTER), migrationsTableStatement(CLUSTER), ...SCHEMA_MIGRATIONS.flatMap((migration) => migration.statements(CLUSTER))];
}

/** An engine that keeps what it is told: statements in order, and schema_migrations rows. */
function recordingEngine() {
  const statements: string[] = [];
  const recorded: Array<Record<string, unknown>> = [];
  const engine: AnalyticsEngine = {
    kind: 'server',
    query: async <R>() => recorded.map((row) => ({ version: row.version })) as R[],
    queryBatches: async () => undefined,
    command: async (sql) => void statements.push(typeof sql === 'string' ? sql : sql.text),
    insert: async (table, rows) => void (table === 'schema_migrations' && recorded.push(...rows)),
    insertTsv: async () => undefined,
    close: async () => undefined,
  };
  return { engine, statements, recorded };
}

const migration = (version: number): SchemaMigration => ({ version, name: `m${version}`, statements: () => [`CREATE TABLE IF NOT EXISTS m${version} (x UInt8) ENGINE = Memory`] });

describe('schema layouts', () => {
  it('creates everything on the cluster in the cluster layout', () => {
    for (const statement of clusterStatements()) expect(statement).toMatch(/^(CREATE (DATABASE|TABLE) IF NOT EXISTS|ALTER TABLE) \S+ ON CLUSTER 'posthog'/);
  });

  it('adds a column to the stored events and to the Distributed table readers use, in the cluster layout', () => {
    const altered = clusterStatements().filter((statement) => statement.includes('ADD COLUMN')).map((statement) => statement.split(' ').slice(0, 15).join(' '));
    expect(altered).toEqual([
      "ALTER TABLE sharded_events ON CLUSTER 'posthog' ADD COLUMN IF NOT EXISTS mat_json_nulls UInt32 MATERIALIZED bitShiftLeft(toUInt32(JSONHas(properties,",
      "ALTER TABLE events ON CLUSTER 'posthog' ADD COLUMN IF NOT EXISTS mat_json_nulls UInt32 MATERIALIZED bitShiftLeft(toUInt32(JSONHas(properties,",
    ]);
  });

  it('replicates every stored table in the cluster layout', () => {
    const tables = clusterStatements().filter((statement) => statement.startsWith('CREATE TABLE') && !statement.includes('Distributed('));
    expect(tables.length).toBeGreaterThan(5);
    for (const statement of tables) expect(statement).toMatch(/ENGINE = Replicated(MergeTree|ReplacingMergeTree)\('\/clickhouse\/tables\/(\{shard\}|whole)\/hogbase\.\w+', '\{replica\}'/);
  });

  it('shards events by distinct id behind a Distributed table of the same name readers use', () => {
    const statements = clusterStatements();
    expect(statements.some((statement) => /^CREATE TABLE IF NOT EXISTS sharded_events ON CLUSTER 'posthog'[\s\S]*ReplicatedMergeTree\('\/clickhouse\/tables\/\{shard\}\/hogbase\.sharded_events'/.test(statement))).toBe(true);
    expect(statements).toContainEqual(
      "CREATE TABLE IF NOT EXISTS events ON CLUSTER 'posthog' AS sharded_events\nENGINE = Distributed('posthog', 'hogbase', 'sharded_events', sipHash64(distinct_id))",
    );
  });

  it('uses plain engines and no cluster in the single layout', () => {
    const statements = [createDatabaseStatement(SINGLE), migrationsTableStatement(SINGLE), ...SCHEMA_MIGRATIONS.flatMap((m) => m.statements(SINGLE))];
    for (const statement of statements) expect(statement).not.toMatch(/ON CLUSTER|Replicated|Distributed/);
    expect(statements[0]).toBe('CREATE DATABASE IF NOT EXISTS `hogbase`');
  });
});

describe(migrateSchema.name, () => {
  it('applies pending migrations in version order and records each after its statements', async () => {
    const { engine, statements, recorded } = recordingEngine();
    expect(await migrateSchema(engine, SINGLE, [migration(3), migration(1), migration(2)])).toEqual([1, 2, 3]);
    expect(statements).toEqual([migrationsTableStatement(SINGLE), ...[1, 2, 3].map((v) => migration(v).statements(SINGLE)[0])]);
    expect(recorded).toEqual([1, 2, 3].map((version) => ({ version, name: `m${version}` })));
  });

  it('applies only what is not recorded yet, and nothing the second time', async () => {
    const { engine, recorded } = recordingEngine();
    await migrateSchema(engine, SINGLE, [migration(1)]);
    expect(await migrateSchema(engine, SINGLE, [migration(1), migration(2)])).toEqual([2]);
    expect(await migrateSchema(engine, SINGLE, [migration(1), migration(2)])).toEqual([]);
    expect(recorded.map((row) => row.version)).toEqual([1, 2]);
  });

  it('leaves a migration unrecorded when one of its statements fails, so the next boot runs it again', async () => {
    const { engine, recorded } = recordingEngine();
    const failing = { ...engine, command: async (sql: unknown) => (String(sql).includes('m2') ? Promise.reject(new Error('refused')) : undefined) };
    await expect(migrateSchema(failing, SINGLE, [migration(1), migration(2)])).rejects.toThrow('refused');
    expect(recorded.map((row) => row.version)).toEqual([1]);
  });
});

describe('the schema on the embedded engine', () => {
  const dir = engineDirectory('migrate-schema');
  let engine: ChdbEngine;

  beforeAll(async () => {
    engine = await ChdbEngine.open({ chdb: requireChdb(), path: dir.path, layout: SINGLE, sessions: 1, limits: LIMITS });
  });

  afterAll(async () => {
    await engine?.close();
    dir.remove();
  });

  it('creates every table, records the versions, and is a no-op the second time', async () => {
    expect(await migrateSchema(engine, SINGLE)).toEqual(SCHEMA_MIGRATIONS.map((m) => m.version));
    expect(await migrateSchema(engine, SINGLE)).toEqual([]);
    const tables = await engine.query<{ name: string }>({ text: 'SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name', params: {} });
    expect(tables.map((table) => table.name)).toEqual(['cohort_person', 'copy_state', 'events', 'groups', 'person', 'person_distinct_id', 'person_distinct_id_overrides', 'schema_migrations']);
  });
});
