import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A live session: whose it is and the token its writes must echo. */
export interface SessionRow {
  userId: number;
  csrfToken: string;
}

/** Sessions and sign-in attempts. Tokens are stored as their SHA-256, never as sent. */
@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertSession(tokenHash: string, userId: number, csrfToken: string, expiresAt: Date): Promise<void> {
    await this.dataSource.query('INSERT INTO user_session (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)', [tokenHash, userId, csrfToken, expiresAt]);
  }

  async liveSession(tokenHash: string): Promise<SessionRow | null> {
    const rows: Array<{ user_id: number; csrf_token: string }> = await this.dataSource.query(
      'SELECT user_id, csrf_token FROM user_session WHERE token_hash = $1 AND expires_at > now()',
      [tokenHash],
    );
    return rows.length ? { userId: rows[0].user_id, csrfToken: rows[0].csrf_token } : null;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.dataSource.query('DELETE FROM user_session WHERE token_hash = $1', [tokenHash]);
  }

  /** Ends a user's sessions (a password change), and drops every expired one while at it. */
  async deleteUserSessions(em: EntityManager, userId: number): Promise<void> {
    await em.query('DELETE FROM user_session WHERE user_id = $1 OR expires_at <= now()', [userId]);
  }

  /**
   * Counts a sign-in attempt as failed before its password is checked, and answers how many failures the e-mail has
   * in the window besides this one: attempts sent together all see each other, so a burst cannot outrun the lockout.
   */
  async recordAttempt(email: string, since: Date): Promise<{ attemptId: string; earlier: Date[] }> {
    // Failures older than the window count for nothing: dropped here, so unknown e-mails do not pile up.
    await this.dataSource.query('DELETE FROM sign_in_failure WHERE failed_at <= $1', [since]);
    const [{ id }]: Array<{ id: string }> = await this.dataSource.query('INSERT INTO sign_in_failure (email) VALUES (lower($1)) RETURNING id', [email]);
    const rows: Array<{ failed_at: Date }> = await this.dataSource.query(
      'SELECT failed_at FROM sign_in_failure WHERE email = lower($1) AND failed_at > $2 AND id <> $3 ORDER BY failed_at',
      [email, since, id],
    );
    return { attemptId: id, earlier: rows.map((row) => row.failed_at) };
  }

  /** An attempt that did not fail (its password was right, or it was refused before being tried) is no failure. */
  async forgetAttempt(attemptId: string): Promise<void> {
    await this.dataSource.query('DELETE FROM sign_in_failure WHERE id = $1', [attemptId]);
  }

  /** A successful sign-in forgets the e-mail's failures, and failures older than the window go with them. */
  async clearFailures(email: string, before: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM sign_in_failure WHERE email = lower($1) OR failed_at < $2', [email, before]);
  }
}
