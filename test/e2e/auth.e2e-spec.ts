import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { sendJson } from '../support/capture-client';
import { startTestApp, TestApp } from '../support/test-app';

const NOT_AUTHENTICATED = {
  type: 'authentication_error',
  code: 'not_authenticated',
  detail: 'Authentication credentials were not provided.',
  attr: null,
};
const invalidKey = (source: string) => ({
  type: 'authentication_error',
  code: 'authentication_failed',
  detail: `Personal API key found in request ${source} is invalid. Check the key, or create one with \`npm run cli -- keys create --email <you>\`.`,
  attr: null,
});
const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });
const PROJECT_NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null };

describe('Authentication of management routes', () => {
  let t: TestApp;
  let provisioning: ProvisioningService;
  let otherProjectId: number;
  /** A second project of the admin's organization. */
  let otherAdminProjectId: number;

  beforeAll(async () => {
    t = await startTestApp();
    provisioning = t.app.get(ProvisioningService);
    await provisioning.createUser({ email: 'member@example.com', level: MembershipLevel.Member });
    await provisioning.createUser({ email: 'outsider@example.com', level: MembershipLevel.Member });
    const other = await provisioning.createOrganization('Elsewhere', 'outsider@example.com');
    otherProjectId = other.project.id;
    otherAdminProjectId = (await provisioning.createProject('Second')).id;
  });
  afterAll(() => t.close());

  const keyFor = (email: string, scopes: string[] = ['*'], projectIds: number[] | null = null) =>
    provisioning.createPersonalKey({ email, label: 'test', scopes, projectIds });

  it('answers 401 not_authenticated with WWW-Authenticate when no key is sent', async () => {
    const res = await t.http.get('/api/users/@me/', { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NOT_AUTHENTICATED);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('names the Authorization header when the bearer key is unknown', async () => {
    const res = await t.http.get('/api/users/@me/', { key: 'phx_thisKeyDoesNotExist0000000000000000000000' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(invalidKey('Authorization header'));
  });

  it('names the body when an unknown key comes in the JSON body', async () => {
    const res = await t.http.post('/api/projects/', { personal_api_key: 'phx_nope', name: 'x' }, { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(invalidKey('body'));
  });

  it('names the query string when an unknown key comes in the query', async () => {
    const res = await t.http.get('/api/users/@me/?personal_api_key=phx_nope', { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(invalidKey('query string'));
  });

  it('accepts the key from the query string and from the body', async () => {
    const viaQuery = await t.http.get(`/api/users/@me/?personal_api_key=${t.keys.personalApiKey}`, { key: null });
    expect(viaQuery.status).toBe(200);
    const viaBody = await t.http.post('/api/projects/', { personal_api_key: t.keys.personalApiKey, name: 'Body key' }, { key: null });
    expect(viaBody.status).toBe(201);
  });

  it('tolerates extra spaces after Bearer', async () => {
    const res = await t.http.get('/api/users/@me/', { key: null, headers: { authorization: `Bearer    ${t.keys.personalApiKey}` } });
    expect(res.status).toBe(200);
  });

  it('ignores a non-Bearer Authorization header', async () => {
    const res = await t.http.get('/api/users/@me/', { key: null, headers: { authorization: `Basic ${t.keys.personalApiKey}` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(NOT_AUTHENTICATED);
  });

  it('rejects the key of a deactivated user at once', async () => {
    const key = await keyFor('member@example.com');
    expect((await t.http.get('/api/users/@me/', { key })).status).toBe(200);
    await t.sql(`UPDATE app_user SET is_active = false WHERE email = 'member@example.com'`);
    const res = await t.http.get('/api/users/@me/', { key });
    await t.sql(`UPDATE app_user SET is_active = true WHERE email = 'member@example.com'`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(invalidKey('Authorization header'));
  });

  it('rejects a deleted key on the next request', async () => {
    const key = await keyFor('member@example.com');
    await t.sql(`DELETE FROM personal_api_key WHERE mask_value = $1`, [`${key.slice(0, 4)}...${key.slice(-4)}`]);
    expect((await t.http.get('/api/users/@me/', { key })).body).toEqual(invalidKey('Authorization header'));
  });

  describe('scopes', () => {
    it('refuses a key without the route scope, naming it', async () => {
      const key = await keyFor('member@example.com', ['feature_flag:read']);
      const res = await t.http.get('/api/projects/', { key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(denied("API key missing required scope 'project:read'"));
    });

    it('lets object:write satisfy object:read', async () => {
      const key = await keyFor('member@example.com', ['project:write']);
      expect((await t.http.get('/api/projects/', { key })).status).toBe(200);
    });

    it('refuses a write with a read-only scope', async () => {
      const key = await keyFor('member@example.com', ['project:read']);
      const res = await t.http.patch(`/api/projects/${t.keys.projectId}/`, { name: 'x' }, { key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(denied("API key missing required scope 'project:write'"));
    });

    it('asks query:read of the query API, as PostHog does, so an insight:read key cannot list persons through it', async () => {
      const actors = { query: { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } } } };
      const insightOnly = await keyFor('member@example.com', ['insight:read']);
      const refused = await t.http.post(`/api/projects/${t.keys.projectId}/query/`, actors, { key: insightOnly });
      expect([refused.status, refused.body]).toEqual([403, denied("API key missing required scope 'query:read'")]);
      const queryKey = await keyFor('member@example.com', ['query:read']);
      expect((await t.http.post(`/api/projects/${t.keys.projectId}/query/`, actors, { key: queryKey })).status).toBe(200);
    });

    it('lets a legacy key without scopes through', async () => {
      const key = await keyFor('member@example.com', []);
      expect((await t.http.get('/api/users/@me/', { key })).status).toBe(200);
    });
  });

  describe('project resolution', () => {
    it('resolves @current to the key owner current project', async () => {
      const res = await t.http.get('/api/projects/@current/');
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(t.keys.projectId);
    });

    it('answers 404 Project not found for an unknown numeric id', async () => {
      const res = await t.http.get('/api/projects/999999/');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(PROJECT_NOT_FOUND);
    });

    it('answers 404 Project not found for a non-numeric id', async () => {
      const res = await t.http.get('/api/projects/abc/');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(PROJECT_NOT_FOUND);
    });

    it('answers 403 for a project of an organization the user is not in', async () => {
      const res = await t.http.get(`/api/projects/${otherProjectId}/`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(denied("You don't have access to the project."));
    });

    it('answers 403 naming the id when the key is limited to other projects, existing or not', async () => {
      const key = await keyFor('outsider@example.com', ['*'], [otherProjectId]);
      for (const id of [t.keys.projectId, 424242]) {
        const res = await t.http.get(`/api/projects/${id}/`, { key });
        expect(res.status).toBe(403);
        expect(res.body).toEqual(denied(`API key does not have access to the requested project: ID ${id}.`));
      }
      expect((await t.http.get(`/api/projects/${otherProjectId}/`, { key })).status).toBe(200);
    });

    it('refuses a key limited to projects on every route that names no project, in PostHog\'s words', async () => {
      const key = await keyFor('outsider@example.com', ['*'], [otherProjectId]);
      const refusals = [
        await t.http.get('/api/projects/', { key }),
        await t.http.post('/api/projects/', { name: 'Escaped' }, { key }),
        await t.http.get('/api/personal_api_keys/', { key }),
        await t.http.get('/api/organizations/@current/roles/', { key }),
        await t.http.patch('/api/organizations/@current/resource_access/1/', { access_level: 21 }, { key }),
      ];
      expect(refusals.map((res) => [res.status, res.body])).toEqual(
        refusals.map(() => [403, denied('API key with scoped projects are only supported on project-based views. Use a key without a project restriction for this route.')]),
      );
      expect(await t.sql("SELECT name FROM project WHERE name = 'Escaped'")).toEqual([]);
    });

    it('shows a key limited to projects only those projects on /api/users/@me/', async () => {
      const key = await keyFor('admin@localhost', ['*'], [otherAdminProjectId]);
      const res = await t.http.get('/api/users/@me/', { key });
      expect(res.status).toBe(200);
      expect(res.body.team).toMatchObject({ id: otherAdminProjectId });
      expect(res.body.organization.teams.map((team: { id: number }) => team.id)).toEqual([otherAdminProjectId]);
      expect(res.body.organization.projects.map((project: { id: number }) => project.id)).toEqual([otherAdminProjectId]);
      expect(res.text).not.toContain(t.keys.projectApiKey);
      const whole = await t.http.get('/api/users/@me/');
      expect(whole.body.team.id).toBe(t.keys.projectId);
      expect(whole.body.organization.teams.map((team: { id: number }) => team.id)).toEqual(expect.arrayContaining([t.keys.projectId, otherAdminProjectId]));
    });

    it('refuses another user uuid on /api/users/', async () => {
      const res = await t.http.get('/api/users/00000000-0000-0000-0000-000000000000/');
      expect(res.status).toBe(403);
      expect(res.body).toEqual(denied("As a non-staff user you're only allowed to access the `@me` user instance."));
    });
  });

  describe('failed key attempts', () => {
    let throttled: TestApp;
    beforeAll(async () => {
      throttled = await startTestApp({ env: { AUTH_FAILED_ATTEMPTS_PER_MINUTE: '3', TRUSTED_PROXIES: 'true' } });
    });
    afterAll(() => throttled.close());

    const from = (address: string, key: string) => throttled.http.get('/api/users/@me/', { key, headers: { 'x-forwarded-for': address } });
    const wrong = `phx_${'w'.repeat(43)}`;

    it('refuses every personal key from an address that sent too many unknown ones, with 429 and Retry-After', async () => {
      for (let i = 0; i < 3; i++) expect((await from('203.0.113.7', wrong)).status).toBe(401);
      const refused = await from('203.0.113.7', throttled.keys.personalApiKey);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        type: 'throttled_error',
        code: 'throttled',
        detail: expect.stringMatching(/^Request was throttled: too many requests with an invalid personal API key came from this address\. Expected available in (60|59) seconds\.$/),
        attr: null,
      });
      expect(refused.headers.get('retry-after')).toMatch(/^(60|59)$/);
      // The public routes' personal keys are the same secrets: refused from that address too.
      const capture = await sendJson(throttled, '/capture/', { api_key: throttled.keys.personalApiKey, project_id: throttled.keys.projectId, event: 'e', distinct_id: 'd' }, { 'x-forwarded-for': '203.0.113.7' });
      expect(capture.status).toBe(429);
    });

    it('lets other addresses through, and counts unknown keys sent to the public routes too', async () => {
      expect((await from('198.51.100.1', throttled.keys.personalApiKey)).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const res = await sendJson(throttled, '/flags/?v=2', { api_key: wrong, project_id: 1, distinct_id: 'd' }, { 'x-forwarded-for': '198.51.100.2' });
        expect(res.status).toBe(401);
      }
      expect((await from('198.51.100.2', throttled.keys.personalApiKey)).status).toBe(429);
    });
  });
});
