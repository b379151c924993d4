import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { hashPassword, passwordProblem, verifyPassword } from './passwords';
import { SessionRow, SessionsRepository } from './sessions.repository';

/** How long a session lasts from sign-in (Django's default, which PostHog keeps). */
export const SESSION_TTL_MS = 14 * 24 * 3600_000;
/** Failed sign-ins an e-mail may have within the window before it is locked until the oldest leaves the window. */
const LOCKOUT_FAILURES = 5;
const LOCKOUT_WINDOW_MS = 15 * 60_000;
/** Compared against when the e-mail is unknown, so a wrong e-mail takes as long as a wrong password (made on first use). */
let noUserHash: Promise<string> | null = null;
const unknownUserHash = () => (noUserHash ??= hashPassword('no such user'));

/** A new session: the cookie's token (only its hash is stored) and the token writes must echo. */
export interface NewSession {
  token: string;
  csrfToken: string;
  expiresAt: Date;
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Sign-in for people: passwords, server-side sessions, and the lockout after repeated failures. */
@Injectable()
export class SessionsService {
  constructor(private readonly sessions: SessionsRepository) {}

  async signIn(email: string, password: string, now = new Date()): Promise<NewSession & { userId: number }> {
    const windowStart = new Date(now.getTime() - LOCKOUT_WINDOW_MS);
    const failures = await this.sessions.failuresSince(email, windowStart);
    if (failures.length >= LOCKOUT_FAILURES) {
      const minutes = Math.max(1, Math.ceil((failures[failures.length - LOCKOUT_FAILURES].getTime() + LOCKOUT_WINDOW_MS - now.getTime()) / 60_000));
      throw new ApiError(429, 'throttled_error', 'too_many_sign_in_attempts',
        `Too many failed sign-ins for this e-mail: try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or set a new password with \`npm run cli -- users set-password --email <e-mail>\`.`,
        null, { 'retry-after': String(minutes * 60) });
    }
    const user = await this.sessions.passwordOf(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? (await unknownUserHash()));
    if (!user || !user.isActive || user.passwordHash === null || !matches) {
      await this.sessions.recordFailure(email);
      throw ApiError.validation('Invalid e-mail or password.', null, 'invalid_credentials');
    }
    await this.sessions.clearFailures(email, windowStart);
    const session = { token: randomBytes(32).toString('base64url'), csrfToken: randomBytes(24).toString('base64url'), expiresAt: new Date(now.getTime() + SESSION_TTL_MS) };
    await this.sessions.insertSession(digest(session.token), user.userId, session.csrfToken, session.expiresAt);
    return { ...session, userId: user.userId };
  }

  /** The live session a cookie's token names, or null (unknown, signed out, expired, or ended by a password change). */
  session(token: string): Promise<SessionRow | null> {
    return this.sessions.liveSession(digest(token));
  }

  signOut(token: string): Promise<void> {
    return this.sessions.deleteSession(digest(token));
  }

  /** Sets a password and ends the user's sessions: whoever signed in with the old one is signed out. */
  async setPassword(userId: number, password: string, em?: EntityManager): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw ApiError.validation(problem, 'password');
    await this.sessions.setPassword(userId, await hashPassword(password), em);
  }
}
