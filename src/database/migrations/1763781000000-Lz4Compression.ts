import { MigrationInterface, QueryRunner } from 'typeorm';

/** The columns that hold what clients send in bulk: events' properties and element chains, persons' and groups' properties. */
const BULK_COLUMNS = [
  ['event', 'properties'],
  ['event', 'elements_chain'],
  ['person', 'properties'],
  ['"group"', 'properties'],
] as const;

/**
 * Large values of the bulk columns are compressed with lz4 where the server has it, instead of pglz (PostgreSQL's
 * default). On text that compresses little (identifiers, encoded data), pglz spends about 25 ms per MB only to store
 * the value uncompressed in the end, lz4 about 3.5 ms; on text that compresses well, 4.4 against 0.5 ms. That work
 * happens in a database backend each time a large event is stored, on the cores the API may share. Stored values keep
 * their method (PostgreSQL reads both), so nothing is rewritten. Each partition of the event table has its own setting
 * and those created later take the parent's. A server without lz4 (the embedded PostgreSQL is built without it) or
 * older than 14 (no column compression) keeps pglz, and the migration still succeeds.
 */
export class Lz4Compression1763781000000 implements MigrationInterface {
  name = 'Lz4Compression1763781000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(setCompression('lz4'));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(setCompression('default'));
  }
}

function setCompression(method: 'lz4' | 'default'): string {
  const columns = BULK_COLUMNS.map(([table, column]) => `('${table}', '${column}')`).join(', ');
  return `
    DO $$
    DECLARE
      target record;
    BEGIN
      IF current_setting('server_version_num')::int < 140000 THEN
        RAISE NOTICE 'PostgreSQL before 14 has no column compression: large values stay compressed with pglz.';
        RETURN;
      END IF;
      FOR target IN
        SELECT tree.relid, bulk.column_name
        FROM (VALUES ${columns}) AS bulk (table_name, column_name)
        CROSS JOIN LATERAL (
          SELECT bulk.table_name::regclass AS relid
          UNION
          SELECT relid FROM pg_partition_tree(bulk.table_name::regclass)
        ) AS tree
      LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET COMPRESSION ${method}', target.relid, target.column_name);
      END LOOP;
    EXCEPTION WHEN feature_not_supported THEN
      RAISE NOTICE 'This PostgreSQL has no lz4: large values stay compressed with pglz.';
    END $$`;
}
