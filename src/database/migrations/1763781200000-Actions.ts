import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Actions: named groups of events (PostHog's saved event definitions), each a list of steps an event may match.
 * Steps are stored as one JSON list, as PostHog stores them (`steps_json`): they are read and written whole.
 */
export class Actions1763781200000 implements MigrationInterface {
  name = 'Actions1763781200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE action (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        tags text[] NOT NULL DEFAULT '{}',
        post_to_slack boolean NOT NULL DEFAULT false,
        slack_message_format text NOT NULL DEFAULT '',
        steps jsonb NOT NULL DEFAULT '[]',
        deleted boolean NOT NULL DEFAULT false,
        pinned_at timestamptz,
        created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX action_project_idx ON action (project_id)`);
    // One live action per name in a project: insights and the console name series by it.
    await q.query(`CREATE UNIQUE INDEX action_project_name_live_key ON action (project_id, name) WHERE NOT deleted`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE action`);
  }
}
