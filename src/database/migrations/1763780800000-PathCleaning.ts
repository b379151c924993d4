import { MigrationInterface, QueryRunner } from 'typeorm';

/** A project's path cleaning rules (PostHog's `path_cleaning_filters`), applied by paths with `path_replacements=true`. */
export class PathCleaning1763780800000 implements MigrationInterface {
  name = 'PathCleaning1763780800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE project ADD COLUMN path_cleaning_filters jsonb NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE project DROP COLUMN path_cleaning_filters`);
  }
}
