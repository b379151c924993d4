import { parse, serialize } from 'cookie';
import type { FastifyRequest } from 'fastify';

/**
 * The console's cookies, named as Django names them for PostHog: `sessionid` (HttpOnly: scripts never read it) and
 * `csrftoken` (readable, so the console can echo it in `X-CSRFToken` on writes). Both SameSite=Lax, so another
 * site's page cannot send them with a POST; Secure when the request came over HTTPS.
 */
export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'x-csrftoken';

export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header ? parse(header)[SESSION_COOKIE] : undefined;
}

/** Set-Cookie values that start a session (`expires`) or end it (no token: expired at once). */
export function sessionCookies(request: FastifyRequest, session: { token: string; csrfToken: string; expiresAt: Date } | null): string[] {
  const base = { path: '/', sameSite: 'lax' as const, secure: request.protocol === 'https', expires: session?.expiresAt ?? new Date(0) };
  return [
    serialize(SESSION_COOKIE, session?.token ?? '', { ...base, httpOnly: true }),
    serialize(CSRF_COOKIE, session?.csrfToken ?? '', base),
  ];
}
