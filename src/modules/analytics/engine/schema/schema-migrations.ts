import { HOT_EVENT_PROPERTIES, HOT_JSON_NULLS_COLUMN, jsonNullsExpression, propertyTextExpression } from './hot-properties';

/**
 * The ClickHouse schema as versioned migrations, applied in order at boot (and recorded in
 * `schema_migrations`). The copy's contents are derived from PostgreSQL: a migration that changes what
 * the copy holds raises {@link COPY_VERSION}, and the service then rebuilds the copy by itself.
 *
 * Two layouts with the same table names for readers:
 * - `single`: one server or the embedded engine; plain MergeTree family tables.
 * - `cluster`: `ON CLUSTER`, Replicated* engines, events stored in `sharded_events` on every shard and read
 *   and written through a `Distributed` table `events` sharded by `sipHash64(distinct_id)` (one distinct
 *   id's events on one shard, as PostHog does); person, group and cohort tables are replicated whole on
 *   every node, since every shard joins them.
 */
export interface SchemaLayout {
  kind: 'single' | 'cluster';
  /** The cluster name of `remote_servers` (cluster layout only). */
  cluster?: string;
  database: string;
}

export interface SchemaMigration {
  version: number;
  name: string;
  statements(layout: SchemaLayout): string[];
}

/** The version of what the copy holds; a change rebuilds it from PostgreSQL. */
export const COPY_VERSION = 1;

export function onCluster(layout: SchemaLayout): string {
  return layout.kind === 'cluster' ? ` ON CLUSTER '${layout.cluster}'` : '';
}

/** An engine of the MergeTree family, replicated in the cluster layout (`args` are the engine's own). */
function engine(layout: SchemaLayout, family: 'MergeTree' | 'ReplacingMergeTree', table: string, args = ''): string {
  if (layout.kind === 'single') return `${family}(${args})`;
  const path = `'/clickhouse/tables/{shard}/${layout.database}.${table}', '{replica}'`;
  return `Replicated${family}(${path}${args ? `, ${args}` : ''})`;
}

/** Person-side tables are whole on every node: one shard path shared by all replicas. */
export function wholeEngine(layout: SchemaLayout, family: 'MergeTree' | 'ReplacingMergeTree', table: string, args = ''): string {
  if (layout.kind === 'single') return `${family}(${args})`;
  const path = `'/clickhouse/tables/whole/${layout.database}.${table}', '{replica}'`;
  return `Replicated${family}(${path}${args ? `, ${args}` : ''})`;
}

function hotColumns(): string {
  return [...HOT_EVENT_PROPERTIES].map(([key, column]) => `,\n  ${column} Nullable(String) MATERIALIZED ${propertyTextExpression('properties', key)}`).join('');
}

const events: SchemaMigration = {
  version: 1,
  name: 'events, persons, groups, cohorts and the copy state',
  statements(layout) {
    const c = onCluster(layout);
    const eventsTable = layout.kind === 'cluster' ? 'sharded_events' : 'events';
    const statements = [
      // `person_id` is the owner of the distinct id when the row was copied (0: none); later changes of owner
      // are read from person_distinct_id_overrides, so no insight joins every distinct id.
      // `_batch` is the copy batch that wrote the row: a batch that never committed is removed before the next.
      `CREATE TABLE IF NOT EXISTS ${eventsTable}${c} (
  team_id Int64,
  uuid UUID,
  event String,
  distinct_id String,
  person_id Int64,
  timestamp DateTime64(6, 'UTC'),
  properties String CODEC(ZSTD(3)),
  elements_chain String CODEC(ZSTD(3)),
  _batch UInt64${hotColumns()},
  INDEX batch_idx _batch TYPE minmax GRANULARITY 4,
  -- The copy asks whether a distinct id's events were copied before it had its current owner.
  INDEX distinct_id_idx distinct_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX uuid_idx uuid TYPE bloom_filter(0.01) GRANULARITY 1
) ENGINE = ${engine(layout, 'MergeTree', eventsTable)}
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))`,
      `CREATE TABLE IF NOT EXISTS person${c} (
  team_id Int64, id Int64, created_at DateTime64(6, 'UTC'), properties String CODEC(ZSTD(3)), is_deleted UInt8, version UInt64
) ENGINE = ${wholeEngine(layout, 'ReplacingMergeTree', 'person', 'version')} ORDER BY (team_id, id)`,
      `CREATE TABLE IF NOT EXISTS person_distinct_id${c} (
  team_id Int64, distinct_id String, person_id Int64, is_deleted UInt8, version UInt64
) ENGINE = ${wholeEngine(layout, 'ReplacingMergeTree', 'person_distinct_id', 'version')} ORDER BY (team_id, distinct_id) SETTINGS index_granularity = 512`,
      // Only distinct ids whose owner changed after some of their events were copied (merges, deletes).
      `CREATE TABLE IF NOT EXISTS person_distinct_id_overrides${c} (
  team_id Int64, distinct_id String, person_id Int64, is_deleted UInt8, version UInt64
) ENGINE = ${wholeEngine(layout, 'ReplacingMergeTree', 'person_distinct_id_overrides', 'version')} ORDER BY (team_id, distinct_id) SETTINGS index_granularity = 512`,
      `CREATE TABLE IF NOT EXISTS groups${c} (
  team_id Int64, group_type_index UInt8, group_key String, created_at DateTime64(6, 'UTC'), properties String CODEC(ZSTD(3)), is_deleted UInt8, version UInt64
) ENGINE = ${wholeEngine(layout, 'ReplacingMergeTree', 'groups', 'version')} ORDER BY (team_id, group_type_index, group_key)`,
      `CREATE TABLE IF NOT EXISTS cohort_person${c} (
  team_id Int64, cohort_id Int64, person_id Int64, is_deleted UInt8, version UInt64
) ENGINE = ${wholeEngine(layout, 'ReplacingMergeTree', 'cohort_person', 'version')} ORDER BY (team_id, cohort_id, person_id)`,
      // Two rows per copy batch: when it started, and when it committed with the PostgreSQL horizon it reached and the
      // transactions above that horizon already applied. A batch that started and never committed is undone first.
      `CREATE TABLE IF NOT EXISTS copy_state${c} (
  batch UInt64, status Enum8('started' = 0, 'committed' = 1), copy_version UInt32, horizon String, applied Array(String), at DateTime64(3, 'UTC')
) ENGINE = ${wholeEngine(layout, 'MergeTree', 'copy_state')} ORDER BY batch`,
    ];
    if (layout.kind === 'cluster') {
      statements.push(`CREATE TABLE IF NOT EXISTS events${c} AS sharded_events
ENGINE = Distributed('${layout.cluster}', '${layout.database}', 'sharded_events', sipHash64(distinct_id))`);
    }
    return statements;
  },
};

/**
 * Which hot properties are JSON null (see hot-properties.ts). Rows already copied get it by a mutation that runs
 * in the background; until it has, ClickHouse computes it from the properties when read, with the same answer.
 * The Distributed table of the cluster layout has the column too, so it is read through it.
 */
const hotJsonNulls: SchemaMigration = {
  version: 2,
  name: 'which hot event properties are JSON null',
  statements(layout) {
    const c = onCluster(layout);
    const stored = layout.kind === 'cluster' ? 'sharded_events' : 'events';
    const column = `${HOT_JSON_NULLS_COLUMN} UInt32 MATERIALIZED ${jsonNullsExpression('properties')}`;
    return [
      `ALTER TABLE ${stored}${c} ADD COLUMN IF NOT EXISTS ${column}`,
      ...(layout.kind === 'cluster' ? [`ALTER TABLE events${c} ADD COLUMN IF NOT EXISTS ${column}`] : []),
      `ALTER TABLE ${stored}${c} MATERIALIZE COLUMN ${HOT_JSON_NULLS_COLUMN}`,
    ];
  },
};

export const SCHEMA_MIGRATIONS: readonly SchemaMigration[] = [events, hotJsonNulls];
