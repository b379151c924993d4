import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What lets a reader keep an exact in-memory copy of a project's events and distinct-id owners and bring it
 * up to date with only the rows that changed:
 * - `tx` on `event` and `person_distinct_id`: the writing transaction's id. A reader that has seen every
 *   transaction older than its last snapshot's xmin asks only for rows with `tx` at or above it, which are
 *   few, through a (project_id, tx) index. Rows from before this migration keep NULL: they are read in the
 *   first full load. A trigger stamps a distinct id again when a merge moves it to another person.
 * - `project.deletion_generation`: raised by triggers in the same transaction as any delete or truncate of
 *   events or distinct ids (persons' deletes cascade to theirs), whatever ran it, since a copy cannot see
 *   deleted rows; a reader loads its copy again when the number moves.
 * Adding the columns without a stored default keeps the migration from rewriting the event table.
 */
export class AnalyticsCopies1763780900000 implements MigrationInterface {
  name = 'AnalyticsCopies1763780900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE event ADD COLUMN tx xid8`);
    await q.query(`ALTER TABLE event ALTER COLUMN tx SET DEFAULT pg_current_xact_id()`);
    await q.query(`CREATE INDEX event_project_tx_idx ON event (project_id, tx)`);
    await q.query(`ALTER TABLE person_distinct_id ADD COLUMN tx xid8`);
    await q.query(`ALTER TABLE person_distinct_id ALTER COLUMN tx SET DEFAULT pg_current_xact_id()`);
    await q.query(`CREATE INDEX person_distinct_id_project_tx_idx ON person_distinct_id (project_id, tx)`);
    await q.query(`
      CREATE FUNCTION person_distinct_id_stamp_tx() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.tx := pg_current_xact_id();
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER person_distinct_id_stamp_tx BEFORE UPDATE ON person_distinct_id
        FOR EACH ROW EXECUTE FUNCTION person_distinct_id_stamp_tx()`);
    await q.query(`ALTER TABLE project ADD COLUMN deletion_generation bigint NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE FUNCTION count_project_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE project SET deletion_generation = deletion_generation + 1;
        ELSE
          UPDATE project SET deletion_generation = deletion_generation + 1 WHERE id IN (SELECT DISTINCT project_id FROM deleted_rows);
        END IF;
        RETURN NULL;
      END $$`);
    for (const table of ['event', 'person_distinct_id']) {
      await q.query(`CREATE TRIGGER ${table}_count_deletions AFTER DELETE ON ${table} REFERENCING OLD TABLE AS deleted_rows
        FOR EACH STATEMENT EXECUTE FUNCTION count_project_deletions()`);
      await q.query(`CREATE TRIGGER ${table}_count_truncates AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION count_project_deletions()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['event', 'person_distinct_id']) {
      await q.query(`DROP TRIGGER ${table}_count_truncates ON ${table}`);
      await q.query(`DROP TRIGGER ${table}_count_deletions ON ${table}`);
    }
    await q.query(`DROP FUNCTION count_project_deletions()`);
    await q.query(`ALTER TABLE project DROP COLUMN deletion_generation`);
    await q.query(`DROP TRIGGER person_distinct_id_stamp_tx ON person_distinct_id`);
    await q.query(`DROP FUNCTION person_distinct_id_stamp_tx()`);
    await q.query(`DROP INDEX person_distinct_id_project_tx_idx`);
    await q.query(`ALTER TABLE person_distinct_id DROP COLUMN tx`);
    await q.query(`DROP INDEX event_project_tx_idx`);
    await q.query(`ALTER TABLE event DROP COLUMN tx`);
  }
}
