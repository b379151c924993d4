import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A btree entry holds at most 2,704 bytes, and event names and emails come from clients unbounded: an
 * 8,000-character random event name or email failed its insert, so the event never got stored. These
 * two indexes now hold the first 200 characters (at most 800 bytes); queries compare that prefix to
 * find rows through the index and the whole value to be exact.
 */
export class BoundedIndexKeys1763780600000 implements MigrationInterface {
  name = 'BoundedIndexKeys1763780600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX event_project_event_timestamp_idx`);
    await q.query(`CREATE INDEX event_project_event_timestamp_idx ON event (project_id, left(event, 200), timestamp DESC)`);
    await q.query(`DROP INDEX person_email_idx`);
    await q.query(`CREATE INDEX person_email_idx ON person (project_id, left(properties ->> 'email', 200))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX person_email_idx`);
    await q.query(`CREATE INDEX person_email_idx ON person (project_id, (properties ->> 'email'))`);
    await q.query(`DROP INDEX event_project_event_timestamp_idx`);
    await q.query(`CREATE INDEX event_project_event_timestamp_idx ON event (project_id, event, timestamp DESC)`);
  }
}
