import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What lets the ClickHouse copy follow deletes without reloading: every deleted row of the tables the copy
 * holds is written to `analytics_deletion` by a statement trigger, in the same transaction as the delete,
 * stamped with that transaction's id like the rows themselves (`tx`). The copy applies the deletions of the
 * transactions it applies, so a deleted event, distinct id, person, group or static cohort member leaves it
 * exactly when the transaction that deleted it becomes visible. A TRUNCATE writes one `truncate` row: the
 * copy is then rebuilt. The copy prunes rows older than a day that it has applied.
 *
 * `group` and `cohort_person` get the `tx` stamp the other copied tables have (migration AnalyticsCopies), and the
 * project-wide deletion counter that made in-memory copies reload (`project.deletion_generation`) goes: the log
 * replaces it.
 */
const LOGGED: Array<{ table: string; kind: string; project: string; key: string }> = [
  { table: 'event', kind: 'event', project: 'project_id', key: 'uuid::text' },
  { table: 'person_distinct_id', kind: 'distinct_id', project: 'project_id', key: 'distinct_id' },
  { table: 'person', kind: 'person', project: 'project_id', key: 'id::text' },
  { table: 'group', kind: 'group', project: 'project_id', key: `group_type_index::text || ':' || group_key` },
  {
    table: 'cohort_person', kind: 'cohort_person', key: `cohort_id::text || ':' || person_id::text`,
    // The cohort may be going in the same statement (a cascade): its project is read from the person then.
    project: `coalesce((SELECT c.project_id FROM cohort c WHERE c.id = deleted_rows.cohort_id), (SELECT p.project_id FROM person p WHERE p.id = deleted_rows.person_id), 0)`,
  },
];

export class AnalyticsDeletionLog1763781100000 implements MigrationInterface {
  name = 'AnalyticsDeletionLog1763781100000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['event', 'person_distinct_id']) {
      await q.query(`DROP TRIGGER ${table}_count_truncates ON ${table}`);
      await q.query(`DROP TRIGGER ${table}_count_deletions ON ${table}`);
    }
    await q.query(`DROP FUNCTION count_project_deletions()`);
    await q.query(`ALTER TABLE project DROP COLUMN deletion_generation`);
    await q.query(`
      CREATE TABLE analytics_deletion (
        id bigserial PRIMARY KEY,
        tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        project_id integer NOT NULL,
        kind text NOT NULL,
        key text NOT NULL,
        deleted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX analytics_deletion_tx_idx ON analytics_deletion (tx)`);
    // The last batch written to each ClickHouse copy: a process that wrote it knows, without asking ClickHouse,
    // that the state it remembers is still the copy's (another process refreshing the same copy moves it).
    await q.query(`CREATE TABLE analytics_copy (database text PRIMARY KEY, batch bigint NOT NULL)`);
    await q.query(`ALTER TABLE "group" ADD COLUMN tx xid8`);
    await q.query(`ALTER TABLE "group" ALTER COLUMN tx SET DEFAULT pg_current_xact_id()`);
    await q.query(`CREATE INDEX group_project_tx_idx ON "group" (project_id, tx)`);
    await q.query(`CREATE TRIGGER group_stamp_tx BEFORE UPDATE ON "group" FOR EACH ROW EXECUTE FUNCTION stamp_tx()`);
    await q.query(`ALTER TABLE cohort_person ADD COLUMN tx xid8`);
    await q.query(`ALTER TABLE cohort_person ALTER COLUMN tx SET DEFAULT pg_current_xact_id()`);
    await q.query(`CREATE INDEX cohort_person_tx_idx ON cohort_person (tx)`);
    await q.query(`CREATE TRIGGER cohort_person_stamp_tx BEFORE UPDATE ON cohort_person FOR EACH ROW EXECUTE FUNCTION stamp_tx()`);
    await q.query(`
      CREATE FUNCTION log_analytics_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO analytics_deletion (project_id, kind, key) VALUES (0, 'truncate', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    for (const { table, kind, project, key } of LOGGED) {
      await q.query(`
        CREATE FUNCTION log_${table}_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO analytics_deletion (project_id, kind, key) SELECT ${project}, '${kind}', ${key} FROM deleted_rows;
          RETURN NULL;
        END $$`);
      await q.query(`CREATE TRIGGER ${table}_log_deletions AFTER DELETE ON "${table}" REFERENCING OLD TABLE AS deleted_rows
        FOR EACH STATEMENT EXECUTE FUNCTION log_${table}_deletions()`);
      await q.query(`CREATE TRIGGER ${table}_log_truncates AFTER TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION log_analytics_truncate()`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table } of LOGGED) {
      await q.query(`DROP TRIGGER ${table}_log_truncates ON "${table}"`);
      await q.query(`DROP TRIGGER ${table}_log_deletions ON "${table}"`);
      await q.query(`DROP FUNCTION log_${table}_deletions()`);
    }
    await q.query(`DROP FUNCTION log_analytics_truncate()`);
    await q.query(`DROP TRIGGER cohort_person_stamp_tx ON cohort_person`);
    await q.query(`DROP INDEX cohort_person_tx_idx`);
    await q.query(`ALTER TABLE cohort_person DROP COLUMN tx`);
    await q.query(`DROP TRIGGER group_stamp_tx ON "group"`);
    await q.query(`DROP INDEX group_project_tx_idx`);
    await q.query(`ALTER TABLE "group" DROP COLUMN tx`);
    await q.query(`DROP TABLE analytics_copy`);
    await q.query(`DROP TABLE analytics_deletion`);
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
}
