import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables whose rows change in place (a merge moves a distinct id, `$set` rewrites a person): stamped again on update. */
const STAMPED = ['person_distinct_id', 'person'];

/**
 * What lets a reader keep an exact in-memory copy of a project's events and distinct-id owners and bring it
 * up to date with only the rows that changed:
 * - `tx` on `event`, `person_distinct_id` and `person`: the writing transaction's id. A reader that has
 *   seen every transaction older than its last snapshot's xmin asks only for rows with `tx` at or above
 *   it, which are few, through a (project_id, tx) index. Rows from before this migration keep NULL: they
 *   are read in the first full load. A trigger stamps a distinct id or a person again when it is updated
 *   (a merge moves a distinct id, `$set` rewrites a person's properties).
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
    await q.query(`
      CREATE FUNCTION stamp_tx() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.tx := pg_current_xact_id();
        RETURN NEW;
      END $$`);
    for (const table of STAMPED) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN tx xid8`);
      await q.query(`ALTER TABLE ${table} ALTER COLUMN tx SET DEFAULT pg_current_xact_id()`);
      await q.query(`CREATE INDEX ${table}_project_tx_idx ON ${table} (project_id, tx)`);
      await q.query(`CREATE TRIGGER ${table}_stamp_tx BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION stamp_tx()`);
    }
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
    for (const table of STAMPED) {
      await q.query(`DROP TRIGGER ${table}_stamp_tx ON ${table}`);
      await q.query(`DROP INDEX ${table}_project_tx_idx`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN tx`);
    }
    await q.query(`DROP FUNCTION stamp_tx()`);
    await q.query(`DROP INDEX event_project_tx_idx`);
    await q.query(`ALTER TABLE event DROP COLUMN tx`);
  }
}
