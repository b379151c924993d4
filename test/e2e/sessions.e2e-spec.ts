import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { startTestApp, TestApp } from '../support/test-app';

/** Console sign-in: a session cookie the management API takes as the user, with CSRF on writes. */
describe('Sessions', () => {
  let t: TestApp;
  let anonymous: TestApp['http'];

  /** Signs in and returns the cookies to send and the CSRF token writes must echo. */
  const signIn = async (email: string, password: string) => {
    const res = await anonymous.post('/api/login/', { email, password });
    expect([res.status, res.body]).toEqual([200, { success: true }]);
    const cookies = res.headers.getSetCookie();
    const value = (name: string) => cookies.find((c) => c.startsWith(`${name}=`))!.split(';')[0].split('=')[1];
    return { cookie: `sessionid=${value('sessionid')}; csrftoken=${value('csrftoken')}`, csrf: value('csrftoken'), raw: cookies };
  };
  const failed = (detail: string, code: string, status = 400) => ({ status, body: { type: status === 429 ? 'throttled_error' : 'validation_error', code, detail, attr: null } });

  beforeAll(async () => {
    t = await startTestApp();
    anonymous = t.http.withKey(null);
  });
  afterAll(() => t.close());

  it('signs in with the password the first boot made, in an HttpOnly, SameSite cookie', async () => {
    expect(t.keys.adminPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const session = await signIn(t.keys.email, t.keys.adminPassword);
    const [sessionCookie, csrfCookie] = session.raw;
    expect(sessionCookie).toMatch(/^sessionid=[A-Za-z0-9_-]{43}; Path=\/; Expires=.+; HttpOnly; SameSite=Lax$/);
    expect(csrfCookie).toMatch(/^csrftoken=[A-Za-z0-9_-]{32}; Path=\/; Expires=.+; SameSite=Lax$/);
    const me = await anonymous.get('/api/users/@me/', { headers: { cookie: session.cookie } });
    expect([me.status, me.body.email, me.body.has_password]).toEqual([200, t.keys.email, true]);
  });

  it('reads with the session alone, and writes only with its CSRF token', async () => {
    const session = await signIn(t.keys.email.toUpperCase(), t.keys.adminPassword);
    const flags = `/api/projects/${t.keys.projectId}/feature_flags/`;
    expect((await anonymous.get(flags, { headers: { cookie: session.cookie } })).status).toBe(200);
    const forged = await anonymous.post(flags, { key: 'from-another-site' }, { headers: { cookie: session.cookie } });
    expect([forged.status, forged.body.code]).toEqual([403, 'csrf_failed']);
    const wrong = await anonymous.post(flags, { key: 'with-a-wrong-token' }, { headers: { cookie: session.cookie, 'x-csrftoken': 'nope' } });
    expect(wrong.status).toBe(403);
    const made = await anonymous.post(flags, { key: 'from-the-console' }, { headers: { cookie: session.cookie, 'x-csrftoken': session.csrf } });
    expect([made.status, made.body.key]).toEqual([201, 'from-the-console']);
  });

  it('refuses a wrong password or an unknown e-mail alike, and locks the e-mail after five failures', async () => {
    const email = 'locked@example.com';
    await t.app.get(ProvisioningService).createUser({ email, level: MembershipLevel.Member });
    await t.app.get(ProvisioningService).setPassword(email, 'the right one');
    const wrong = await anonymous.post('/api/login/', { email, password: 'a wrong one' });
    expect({ status: wrong.status, body: wrong.body }).toEqual(failed('Invalid e-mail or password.', 'invalid_credentials'));
    const unknown = await anonymous.post('/api/login/', { email: 'nobody@example.com', password: 'whatever1' });
    expect({ status: unknown.status, body: unknown.body }).toEqual(failed('Invalid e-mail or password.', 'invalid_credentials'));
    for (let i = 0; i < 4; i++) expect((await anonymous.post('/api/login/', { email, password: 'still wrong' })).status).toBe(400);
    const locked = await anonymous.post('/api/login/', { email, password: 'the right one' });
    expect([locked.status, locked.body.code, locked.headers.get('retry-after')]).toEqual([429, 'too_many_sign_in_attempts', '900']);
    expect(locked.body.detail).toBe('Too many failed sign-ins for this e-mail: try again in 15 minutes, or set a new password with `npm run cli -- users set-password --email <e-mail>`.');
    const malformed = await anonymous.post('/api/login/', { email: 'x@example.com' });
    expect([malformed.status, malformed.body.attr]).toEqual([400, 'password']);
  });

  it('lets no more than five of a burst of sign-ins sent together try their password', async () => {
    const email = 'burst@example.com';
    await t.app.get(ProvisioningService).createUser({ email, level: MembershipLevel.Member });
    await t.app.get(ProvisioningService).setPassword(email, 'the right one');
    const burst = await Promise.all(Array.from({ length: 12 }, () => anonymous.post('/api/login/', { email, password: 'a wrong guess' })));
    const tried = burst.filter((res) => res.status === 400).length;
    expect(tried).toBeGreaterThanOrEqual(1);
    expect(tried).toBeLessThanOrEqual(5);
    expect(burst.filter((res) => res.status === 429).length).toBe(12 - tried);
  });

  it('ends the session on sign-out, and every session of a user when their password changes', async () => {
    const email = 'rotating@example.com';
    await t.app.get(ProvisioningService).createUser({ email, level: MembershipLevel.Member });
    await t.app.get(ProvisioningService).setPassword(email, 'first password');
    const first = await signIn(email, 'first password');
    const second = await signIn(email, 'first password');
    const signOut = await anonymous.post('/api/logout/', undefined, { headers: { cookie: first.cookie, 'x-csrftoken': first.csrf } });
    expect(signOut.status).toBe(200);
    expect(signOut.headers.getSetCookie()[0]).toMatch(/^sessionid=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/);
    const ended = await anonymous.get('/api/users/@me/', { headers: { cookie: first.cookie } });
    expect([ended.status, ended.body.code]).toEqual([401, 'session_ended']);
    expect((await anonymous.get('/api/users/@me/', { headers: { cookie: second.cookie } })).status).toBe(200);
    await t.app.get(ProvisioningService).setPassword(email, 'second password');
    expect((await anonymous.get('/api/users/@me/', { headers: { cookie: second.cookie } })).status).toBe(401);
    const old = await anonymous.post('/api/login/', { email, password: 'first password' });
    expect(old.status).toBe(400);
    await signIn(email, 'second password');
  });

  it('refuses an expired session with a 401 that says to sign in again', async () => {
    const session = await signIn(t.keys.email, t.keys.adminPassword);
    await t.sql("UPDATE user_session SET expires_at = now() - interval '1 second'");
    const expired = await anonymous.get('/api/users/@me/', { headers: { cookie: session.cookie } });
    expect([expired.status, expired.body]).toEqual([401, { type: 'authentication_error', code: 'session_ended', detail: 'Your session has ended (signed out, expired, or the password changed): sign in again.', attr: null }]);
  });

  it('keeps personal keys working as before, and never takes a session on project-key routes', async () => {
    expect((await t.http.get('/api/users/@me/')).status).toBe(200);
    const session = await signIn(t.keys.email, t.keys.adminPassword);
    const flags = await anonymous.post('/flags/?v=2', { distinct_id: 'someone' }, { headers: { cookie: session.cookie, 'x-csrftoken': session.csrf } });
    expect(flags.status).toBe(401);
  });
});
