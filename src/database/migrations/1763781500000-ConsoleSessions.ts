import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in for people: a password per user (scrypt, with its parameters and salt in the stored text), server-side
 * sessions named by the hash of their cookie's token, and failed sign-ins per e-mail for the lockout.
 */
export class ConsoleSessions1763781500000 implements MigrationInterface {
  name = 'ConsoleSessions1763781500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE app_user ADD COLUMN password_hash text, ADD COLUMN password_changed_at timestamptz`);
    await q.query(`
      CREATE TABLE user_session (
        token_hash text PRIMARY KEY,
        user_id integer NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX user_session_user_idx ON user_session (user_id)`);
    await q.query(`
      CREATE TABLE sign_in_failure (
        id bigserial PRIMARY KEY,
        email text NOT NULL,
        failed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sign_in_failure_email_idx ON sign_in_failure (email, failed_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sign_in_failure`);
    await q.query(`DROP TABLE user_session`);
    await q.query(`ALTER TABLE app_user DROP COLUMN password_hash, DROP COLUMN password_changed_at`);
  }
}
