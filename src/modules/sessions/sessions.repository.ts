import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A live session: whose it is and the token its writes must echo. */
export interface SessionRow {
  userId: number;
  csrfToken: string;
}

/** Passwords, sessions and failed sign-ins. Tokens are stored as their SHA-256, never as sent. */
@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async passwordOf(email: string): Promise<{ userId: number; passwordHash: string | null; isActive: boolean } | null> {
    const rows: Array<{ id: number; password_hash: string | null; is_active: boolean }> = await this.dataSource.query(
      'SELECT id, password_hash, is_active FROM app_user WHERE lower(email) = lower($1)',
      [email],
    );
    return rows.length ? { userId: rows[0].id, passwordHash: rows[0].password_hash, isActive: rows[0].is_active } : null;
  }

  /** Sets a user's password and ends every session of theirs, in one transaction. */
  async setPassword(userId: number, passwordHash: string, em: EntityManager = this.dataSource.manager): Promise<void> {
    await em.query('UPDATE app_user SET password_hash = $2, password_changed_at = now() WHERE id = $1', [userId, passwordHash]);
    await em.query('DELETE FROM user_session WHERE user_id = $1', [userId]);
  }

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

  /** Failed sign-ins for an e-mail since `since`, oldest first. */
  async failuresSince(email: string, since: Date): Promise<Date[]> {
    const rows: Array<{ failed_at: Date }> = await this.dataSource.query(
      'SELECT failed_at FROM sign_in_failure WHERE email = lower($1) AND failed_at > $2 ORDER BY failed_at',
      [email, since],
    );
    return rows.map((row) => row.failed_at);
  }

  async recordFailure(email: string): Promise<void> {
    await this.dataSource.query('INSERT INTO sign_in_failure (email) VALUES (lower($1))', [email]);
  }

  /** A successful sign-in forgets the e-mail's failures; old ones are dropped as they pass out of the window. */
  async clearFailures(email: string, before: Date): Promise<void> {
    await this.dataSource.query('DELETE FROM sign_in_failure WHERE email = lower($1) OR failed_at < $2', [email, before]);
  }
}
