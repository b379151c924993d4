import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Feature flags and what governs them: the activity log, roles, role memberships, organization
 * resource access, flag role access, and the cohorts flags may target.
 */
export class FeatureFlags1763780300000 implements MigrationInterface {
  name = 'FeatureFlags1763780300000';

  async up(q: QueryRunner): Promise<void> {
    // Bumped in the same transaction as every flag (or cohort) change: evaluation caches watch it.
    await q.query(`ALTER TABLE project ADD COLUMN flags_version bigint NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE cohort (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        name text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        filters jsonb NOT NULL DEFAULT '{}',
        is_static boolean NOT NULL DEFAULT false,
        deleted boolean NOT NULL DEFAULT false,
        created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX cohort_project_idx ON cohort (project_id)`);
    await q.query(`
      CREATE TABLE feature_flag (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        key text NOT NULL,
        name text NOT NULL DEFAULT '',
        filters jsonb NOT NULL DEFAULT '{}',
        deleted boolean NOT NULL DEFAULT false,
        active boolean NOT NULL DEFAULT true,
        ensure_experience_continuity boolean NOT NULL DEFAULT false,
        rollback_conditions jsonb,
        performed_rollback boolean,
        tags text[] NOT NULL DEFAULT '{}',
        version integer NOT NULL DEFAULT 1,
        created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        last_modified_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Soft-deleted flags keep their row; only live flags compete for a key.
    await q.query(`CREATE UNIQUE INDEX feature_flag_project_live_key ON feature_flag (project_id, key) WHERE NOT deleted`);
    await q.query(`CREATE INDEX feature_flag_project_created_idx ON feature_flag (project_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE activity_log (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        project_id integer REFERENCES project (id) ON DELETE CASCADE,
        user_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        is_system boolean NOT NULL DEFAULT false,
        activity text NOT NULL,
        scope text NOT NULL,
        item_id text NOT NULL,
        detail jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX activity_log_scope_idx ON activity_log (project_id, scope, created_at DESC)`);
    await q.query(`CREATE INDEX activity_log_item_idx ON activity_log (project_id, scope, item_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE role (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        name text NOT NULL,
        feature_flags_access_level smallint NOT NULL DEFAULT 37 CHECK (feature_flags_access_level IN (21, 37)),
        created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX role_organization_name_key ON role (organization_id, lower(name))`);
    await q.query(`
      CREATE TABLE role_membership (
        id uuid PRIMARY KEY,
        role_id uuid NOT NULL REFERENCES role (id) ON DELETE CASCADE,
        user_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
        joined_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT role_membership_role_user_key UNIQUE (role_id, user_id)
      )`);
    await q.query(`CREATE INDEX role_membership_user_idx ON role_membership (user_id)`);
    await q.query(`
      CREATE TABLE organization_resource_access (
        id serial PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        resource text NOT NULL,
        access_level smallint NOT NULL DEFAULT 37 CHECK (access_level IN (21, 37)),
        created_by_id integer REFERENCES app_user (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT organization_resource_access_key UNIQUE (organization_id, resource)
      )`);
    await q.query(`
      CREATE TABLE feature_flag_role_access (
        id serial PRIMARY KEY,
        feature_flag_id integer NOT NULL REFERENCES feature_flag (id) ON DELETE CASCADE,
        role_id uuid NOT NULL REFERENCES role (id) ON DELETE CASCADE,
        added_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT feature_flag_role_access_role_flag_key UNIQUE (role_id, feature_flag_id)
      )`);
    await q.query(`CREATE INDEX feature_flag_role_access_flag_idx ON feature_flag_role_access (feature_flag_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE feature_flag_role_access`);
    await q.query(`DROP TABLE organization_resource_access`);
    await q.query(`DROP TABLE role_membership`);
    await q.query(`DROP TABLE role`);
    await q.query(`DROP TABLE activity_log`);
    await q.query(`DROP TABLE feature_flag`);
    await q.query(`DROP TABLE cohort`);
    await q.query(`ALTER TABLE project DROP COLUMN flags_version`);
  }
}
