import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Saved insights: a named query (an InsightVizNode) or a legacy filter, kept with who made and last changed it; and
 * the last computed result of each question, shared by every API process. The result table is a cache that a crash
 * may empty (UNLOGGED: no write-ahead log for rows that are recomputed on demand).
 */
export class SavedInsights1763781300000 implements MigrationInterface {
  name = 'SavedInsights1763781300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE insight (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        short_id text NOT NULL,
        name text,
        derived_name text,
        description text,
        query jsonb,
        filters jsonb NOT NULL DEFAULT '{}',
        favorited boolean NOT NULL DEFAULT false,
        saved boolean NOT NULL DEFAULT true,
        deleted boolean NOT NULL DEFAULT false,
        "order" integer,
        tags text[] NOT NULL DEFAULT '{}',
        created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_modified_at timestamptz NOT NULL DEFAULT now(),
        last_modified_by_id integer REFERENCES app_user (id) ON DELETE SET NULL
      )`);
    // Links name an insight by its short id, unique within a project.
    await q.query(`CREATE UNIQUE INDEX insight_project_short_id_key ON insight (project_id, short_id)`);
    await q.query(`CREATE INDEX insight_project_live_idx ON insight (project_id, last_modified_at DESC) WHERE NOT deleted`);
    await q.query(`
      CREATE UNLOGGED TABLE insight_result (
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        cache_key text NOT NULL,
        result jsonb NOT NULL,
        last_refresh timestamptz NOT NULL,
        PRIMARY KEY (project_id, cache_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE insight_result`);
    await q.query(`DROP TABLE insight`);
  }
}
