import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dashboards and their tiles. A tile shows one saved insight or a text, with its place in the grid (`layouts`), a
 * color and filter overrides; an insight may sit on several dashboards, once on each (PostHog's DashboardTile).
 */
export class Dashboards1763781400000 implements MigrationInterface {
  name = 'Dashboards1763781400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dashboard (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text,
        description text NOT NULL DEFAULT '',
        pinned boolean NOT NULL DEFAULT false,
        filters jsonb NOT NULL DEFAULT '{}',
        tags text[] NOT NULL DEFAULT '{}',
        creation_mode text NOT NULL DEFAULT 'default',
        deleted boolean NOT NULL DEFAULT false,
        created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_accessed_at timestamptz
      )`);
    await q.query(`CREATE INDEX dashboard_project_live_idx ON dashboard (project_id) WHERE NOT deleted`);
    await q.query(`
      CREATE TABLE dashboard_tile (
        id serial PRIMARY KEY,
        dashboard_id integer NOT NULL REFERENCES dashboard (id) ON DELETE CASCADE,
        insight_id integer REFERENCES insight (id) ON DELETE CASCADE,
        text_body text,
        text_created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        layouts jsonb NOT NULL DEFAULT '{}',
        color text,
        filters_overrides jsonb NOT NULL DEFAULT '{}',
        show_description boolean,
        transparent_background boolean,
        deleted boolean NOT NULL DEFAULT false,
        last_modified_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT dashboard_tile_one_kind CHECK ((insight_id IS NULL) <> (text_body IS NULL))
      )`);
    // An insight sits on a dashboard at most once.
    await q.query(`CREATE UNIQUE INDEX dashboard_tile_insight_key ON dashboard_tile (dashboard_id, insight_id) WHERE insight_id IS NOT NULL`);
    await q.query(`CREATE INDEX dashboard_tile_insight_idx ON dashboard_tile (insight_id) WHERE insight_id IS NOT NULL`);
    await q.query(`CREATE INDEX dashboard_tile_dashboard_idx ON dashboard_tile (dashboard_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dashboard_tile`);
    await q.query(`DROP TABLE dashboard`);
  }
}
