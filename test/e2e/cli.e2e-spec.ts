import { runCli } from '../../src/cli/cli-commands';
import { runCliOn } from '../support/cli';
import { startTestApp, TestApp } from '../support/test-app';

describe('CLI commands', () => {
  let t: TestApp;

  const cli = (...argv: string[]) => runCliOn(t, ...argv);

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('explains every command with --help, without touching the database', async () => {
    const lines: string[] = [];
    const none = () => Promise.reject(new Error('no database for help'));
    const top = await runCli({ services: none, analytics: none, out: (line) => lines.push(line) }, ['--help']);
    expect(top).toBe(0);
    expect(lines.join('\n')).toMatch(/users[\s\S]*projects[\s\S]*keys/);
    const sub = await cli('keys', 'create', '--help');
    expect(sub.code).toBe(0);
    expect(sub.output).toContain('--scopes <scopes>');
    expect(sub.output).toContain('--projects <ids>');
  });

  it('rebuilds the analytics copy from PostgreSQL, printing its progress', async () => {
    await t.sql(`INSERT INTO event (project_id, uuid, event, distinct_id, properties, timestamp) VALUES ($1, gen_random_uuid(), 'e', 'd', '{}', now())`, [t.keys.projectId]);
    const rebuilt = await cli('analytics', 'rebuild');
    expect([rebuilt.code, rebuilt.lines]).toEqual([0, ['copied 1 events', 'Rebuilt the analytics copy from PostgreSQL.']]);
  });

  it('creates and lists users', async () => {
    const created = await cli('users', 'create', '--email', 'ada@example.com', '--level', 'admin');
    expect(created.code).toBe(0);
    expect(created.output).toMatch(/^Created user \d+ <ada@example.com>/);
    const listed = await cli('users', 'list');
    expect(listed.output).toContain('ada@example.com\tactive');
    const [membership] = await t.sql<{ level: number }>(
      `SELECT m.level FROM organization_membership m JOIN app_user u ON u.id = m.user_id WHERE u.email = 'ada@example.com'`,
    );
    expect(membership.level).toBe(8);
  });

  it("sets a user's password, generated unless given, that signs them in", async () => {
    const generated = await cli('users', 'set-password', '--email', 'ada@example.com');
    expect(generated.code).toBe(0);
    const password = /^New password for ada@example.com: ([A-Za-z0-9_-]{24})$/.exec(generated.output)?.[1];
    expect(password).toBeDefined();
    expect((await t.http.withKey(null).post('/api/login/', { email: 'ada@example.com', password })).status).toBe(200);
    const given = await cli('users', 'set-password', '--email', 'ada@example.com', '--password', 'a chosen one');
    expect([given.code, given.output]).toEqual([0, 'Password set for ada@example.com; their sessions have ended.']);
    expect((await t.http.withKey(null).post('/api/login/', { email: 'ada@example.com', password })).status).toBe(400);
    const short = await cli('users', 'set-password', '--email', 'ada@example.com', '--password', 'short');
    expect([short.code, short.output]).toEqual([1, 'error: A password needs at least 8 characters.']);
    expect((await cli('users', 'set-password', '--email', 'nobody@example.com')).output).toBe('error: No user with email nobody@example.com.');
  });

  it('refuses a duplicate e-mail with exit code 1', async () => {
    const again = await cli('users', 'create', '--email', 'ADA@example.com');
    expect(again.code).toBe(1);
    expect(again.output).toBe('error: There is already an account with this email address.');
  });

  it('rejects bad arguments with exit code 2', async () => {
    expect((await cli('users', 'create')).code).toBe(2);
    expect((await cli('users', 'create', '--email', 'x@example.com', '--level', 'god')).code).toBe(2);
    expect((await cli('users', 'create', '--email', 'y@example.com', '--level', 'constructor')).code).toBe(2);
    expect((await cli('projects', 'rotate-key', 'abc')).code).toBe(2);
    expect((await cli('nonsense')).code).toBe(2);
  });

  it('creates personal keys that work, with scopes and project limits', async () => {
    const created = await cli('keys', 'create', '--email', 'ada@example.com', '--scopes', 'project:read', '--projects', String(t.keys.projectId));
    expect(created.code).toBe(0);
    const key = /phx_[A-Za-z0-9]{43}/.exec(created.output)?.[0];
    expect(key).toBeDefined();
    const me = await t.http.get('/api/users/@me/', { key });
    expect(me.status).toBe(403);
    expect(me.body.detail).toBe("API key missing required scope 'user:read'");
    const project = await t.http.get(`/api/projects/${t.keys.projectId}/`, { key });
    expect(project.status).toBe(200);
    const listed = await cli('keys', 'list');
    expect(listed.output).toContain(`phx_...${key!.slice(-4)}`);
    expect(listed.output).not.toContain(key);
  });

  it('refuses unknown scopes', async () => {
    const bad = await cli('keys', 'create', '--email', 'ada@example.com', '--scopes', 'everything:write');
    expect(bad.code).toBe(1);
    expect(bad.output).toBe('error: Invalid scope: everything:write');
  });

  it('creates projects, lists them and rotates their key', async () => {
    const created = await cli('projects', 'create', '--name', 'Mobile');
    expect(created.code).toBe(0);
    const [, id, token] = /Created project (\d+) "Mobile"\. Project API key: (phc_[A-Za-z0-9]{43})/.exec(created.output) ?? [];
    expect(token).toBeDefined();
    expect((await cli('projects', 'list')).output).toContain(`${id}\t${token}\tMobile`);
    const rotated = await cli('projects', 'rotate-key', id);
    const fresh = /phc_[A-Za-z0-9]{43}/.exec(rotated.output)?.[0];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(token);
    const [row] = await t.sql<{ api_token: string }>('SELECT api_token FROM project WHERE id = $1', [Number(id)]);
    expect(row.api_token).toBe(fresh);
    expect((await cli('projects', 'rotate-key', '99999')).output).toBe('error: No project 99999.');
  });

  it('creates organizations owned by an existing user', async () => {
    const created = await cli('organizations', 'create', '--name', 'Acme', '--owner', 'ada@example.com');
    expect(created.code).toBe(0);
    expect(created.output).toMatch(/^Created organization [0-9a-f-]{36} with project \d+\. Project API key: phc_/);
    expect((await cli('organizations', 'create', '--name', 'X', '--owner', 'nobody@example.com')).code).toBe(1);
  });
});
