import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What insights need beyond the stored events: the project's test-account filters (property filters that
 * `filter_test_accounts=true` adds to every insight, PostHog's `test_account_filters`), and the distinct id
 * in the event-name index, so a series' events and their actors are read from the index alone (an
 * index-only scan) instead of from the rows with all their properties.
 */
export class Analytics1763780700000 implements MigrationInterface {
  name = 'Analytics1763780700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE project ADD COLUMN test_account_filters jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`DROP INDEX event_project_event_timestamp_idx`);
    await q.query(`CREATE INDEX event_project_event_timestamp_idx ON event (project_id, left(event, 200), timestamp DESC) INCLUDE (distinct_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX event_project_event_timestamp_idx`);
    await q.query(`CREATE INDEX event_project_event_timestamp_idx ON event (project_id, left(event, 200), timestamp DESC)`);
    await q.query(`ALTER TABLE project DROP COLUMN test_account_filters`);
  }
}
