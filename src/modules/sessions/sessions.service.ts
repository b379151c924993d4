import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { FailedAttempts } from '../../common/auth/failed-attempts';
import { ApiError } from '../../common/errors/api-error';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { UsersService } from '../users/users.service';
import { hashPassword, passwordProblem, verifyPassword } from './passwords';
import { csrfFailed, signInLocked } from './sessions.errors';
import { SessionRow, SessionsRepository } from './sessions.repository';

/** How long a session lasts from sign-in (Django's default, which PostHog keeps). */
export const SESSION_TTL_MS = 14 * 24 * 3600_000;
/** Failed sign-ins an e-mail may have within the window before it is locked until the oldest leaves the window. */
const LOCKOUT_FAILURES = 5;
const LOCKOUT_WINDOW_MS = 15 * 60_000;
/** Failed sign-ins are also counted per address, as failed personal keys are, so one address cannot spray many e-mails. */
const ADDRESS_WINDOW_MS = 60_000;
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

/** Whether a sent token is the expected one, compared in constant time. */
export function sameToken(sent: unknown, expected: string): boolean {
  return typeof sent === 'string' && timingSafeEqual(createHash('sha256').update(sent).digest(), createHash('sha256').update(expected).digest());
}

/** Sign-in for people: passwords (kept by the users module), server-side sessions, the lockout after failures. */
@Injectable()
export class SessionsService {
  private readonly addresses: FailedAttempts;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionsRepository,
    private readonly users: UsersService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.addresses = new FailedAttempts(config.auth.failedAttemptsPerMinute, ADDRESS_WINDOW_MS);
  }

  async signIn(email: string, password: string, address: string, now = new Date()): Promise<NewSession> {
    const wait = this.addresses.retryAfterSeconds(address);
    if (wait !== null) throw signInLocked('from this address', wait);
    const windowStart = new Date(now.getTime() - LOCKOUT_WINDOW_MS);
    const { attemptId, earlier } = await this.sessions.recordAttempt(email, windowStart);
    if (earlier.length >= LOCKOUT_FAILURES) {
      await this.sessions.forgetAttempt(attemptId);
      throw signInLocked('for this e-mail', (earlier[earlier.length - LOCKOUT_FAILURES].getTime() + LOCKOUT_WINDOW_MS - now.getTime()) / 1000);
    }
    const user = await this.users.signInRecord(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? (await unknownUserHash()));
    if (!user || !user.isActive || user.passwordHash === null || !matches) {
      this.addresses.recordFailure(address);
      throw ApiError.validation('Invalid e-mail or password.', null, 'invalid_credentials');
    }
    await this.sessions.clearFailures(email, windowStart);
    const session = { token: randomBytes(32).toString('base64url'), csrfToken: randomBytes(24).toString('base64url'), expiresAt: new Date(now.getTime() + SESSION_TTL_MS) };
    await this.sessions.insertSession(digest(session.token), user.userId, session.csrfToken, session.expiresAt);
    return session;
  }

  /** The live session a cookie's token names, or null (unknown, signed out, expired, or ended by a password change). */
  session(token: string): Promise<SessionRow | null> {
    return this.sessions.liveSession(digest(token));
  }

  /** Ends the cookie's session; a live one must be ended with its CSRF token, like any write made with it. */
  async signOut(token: string, csrfToken: unknown): Promise<void> {
    const session = await this.session(token);
    if (session && !sameToken(csrfToken, session.csrfToken)) throw csrfFailed();
    await this.sessions.deleteSession(digest(token));
  }

  /** Sets a password and ends the user's sessions: whoever signed in with the old one is signed out. */
  async setPassword(userId: number, password: string, em?: EntityManager): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw ApiError.validation(problem, 'password');
    const hash = await hashPassword(password);
    const write = async (tx: EntityManager) => {
      await this.users.setPasswordHash(tx, userId, hash);
      await this.sessions.deleteUserSessions(tx, userId);
    };
    await (em ? write(em) : this.dataSource.transaction(write));
  }
}
