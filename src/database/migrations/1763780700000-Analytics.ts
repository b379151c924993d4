import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What insights need beyond the stored events: the project's test-account filters (property filters that
 * `filter_test_accounts=true` adds to every insight, PostHog's `test_account_filters`).
 */
export class Analytics1763780700000 implements MigrationInterface {
  name = 'Analytics1763780700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE project ADD COLUMN test_account_filters jsonb NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE project DROP COLUMN test_account_filters`);
  }
}
