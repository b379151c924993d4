import { MigrationInterface, QueryRunner } from 'typeorm';

/** Organizations, projects, users, memberships and personal API keys. */
export class Foundation1763780000000 implements MigrationInterface {
  name = 'Foundation1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organization (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        slug text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT organization_slug_key UNIQUE (slug)
      )`);
    await q.query(`
      CREATE TABLE project (
        id serial PRIMARY KEY,
        uuid uuid NOT NULL,
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        name text NOT NULL,
        api_token text NOT NULL,
        timezone text NOT NULL DEFAULT 'UTC',
        app_urls jsonb NOT NULL DEFAULT '[]',
        ingested_event boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT project_api_token_key UNIQUE (api_token),
        CONSTRAINT project_uuid_key UNIQUE (uuid)
      )`);
    await q.query(`CREATE INDEX project_organization_idx ON project (organization_id)`);
    await q.query(`
      CREATE TABLE app_user (
        id serial PRIMARY KEY,
        uuid uuid NOT NULL,
        distinct_id text NOT NULL,
        email text NOT NULL,
        first_name text NOT NULL DEFAULT '',
        last_name text NOT NULL DEFAULT '',
        is_active boolean NOT NULL DEFAULT true,
        is_staff boolean NOT NULL DEFAULT false,
        current_organization_id uuid REFERENCES organization (id) ON DELETE SET NULL,
        current_project_id integer REFERENCES project (id) ON DELETE SET NULL,
        date_joined timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT app_user_uuid_key UNIQUE (uuid)
      )`);
    await q.query(`CREATE UNIQUE INDEX app_user_email_key ON app_user (lower(email))`);
    await q.query(`
      CREATE TABLE organization_membership (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        user_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
        level smallint NOT NULL CHECK (level IN (1, 8, 15)),
        joined_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT organization_membership_org_user_key UNIQUE (organization_id, user_id)
      )`);
    await q.query(`CREATE INDEX organization_membership_user_idx ON organization_membership (user_id)`);
    await q.query(`
      CREATE TABLE personal_api_key (
        id text PRIMARY KEY,
        user_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
        label text NOT NULL,
        secure_value text NOT NULL,
        mask_value text NOT NULL,
        scopes text[],
        scoped_projects integer[],
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        last_rolled_at timestamptz,
        CONSTRAINT personal_api_key_secure_value_key UNIQUE (secure_value)
      )`);
    await q.query(`CREATE INDEX personal_api_key_user_idx ON personal_api_key (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE personal_api_key`);
    await q.query(`DROP TABLE organization_membership`);
    await q.query(`DROP TABLE app_user`);
    await q.query(`DROP TABLE project`);
    await q.query(`DROP TABLE organization`);
  }
}
