import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What flag evaluation reads besides flags: static cohort members, the cohort fields the cohorts API
 * serves, and the hash-key overrides of `ensure_experience_continuity`.
 */
export class Evaluation1763780400000 implements MigrationInterface {
  name = 'Evaluation1763780400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cohort ADD COLUMN last_modified_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`
      CREATE TABLE cohort_person (
        cohort_id integer NOT NULL REFERENCES cohort (id) ON DELETE CASCADE,
        person_id bigint NOT NULL REFERENCES person (id) ON DELETE CASCADE,
        PRIMARY KEY (cohort_id, person_id)
      )`);
    // Evaluation asks "which static cohorts hold this person": one index probe per request.
    await q.query(`CREATE INDEX cohort_person_person_idx ON cohort_person (person_id)`);
    await q.query(`
      CREATE TABLE feature_flag_hash_key_override (
        project_id integer NOT NULL REFERENCES project (id) ON DELETE CASCADE,
        person_id bigint NOT NULL REFERENCES person (id) ON DELETE CASCADE,
        feature_flag_key text NOT NULL,
        hash_key text NOT NULL,
        PRIMARY KEY (project_id, person_id, feature_flag_key)
      )`);
    await q.query(`CREATE INDEX feature_flag_hash_key_override_person_idx ON feature_flag_hash_key_override (person_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE feature_flag_hash_key_override`);
    await q.query(`DROP TABLE cohort_person`);
    await q.query(`ALTER TABLE cohort DROP COLUMN last_modified_at`);
  }
}
