import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { startTestApp, TestApp } from '../support/test-app';

describe('Projects API', () => {
  let t: TestApp;
  let memberKey: string;

  beforeAll(async () => {
    t = await startTestApp();
    const provisioning = t.app.get(ProvisioningService);
    await provisioning.createUser({ email: 'member@example.com', level: MembershipLevel.Member });
    memberKey = await provisioning.createPersonalKey({ email: 'member@example.com', label: 'm', scopes: ['*'], projectIds: null });
  });
  afterAll(() => t.close());

  it('creates a project with a fresh project API key (201)', async () => {
    const res = await t.http.post('/api/projects/', { name: 'Web', timezone: 'Europe/Paris', app_urls: ['https://example.com'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      organization: expect.any(String),
      project_id: res.body.id,
      api_token: expect.stringMatching(/^phc_[A-Za-z0-9]{43}$/),
      name: 'Web',
      completed_snippet_onboarding: false,
      has_completed_onboarding_for: null,
      ingested_event: false,
      is_demo: false,
      timezone: 'Europe/Paris',
      access_control: false,
      app_urls: ['https://example.com'],
      test_account_filters: [],
      path_cleaning_filters: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
      effective_membership_level: MembershipLevel.Owner,
    });
    expect(res.body.api_token).not.toBe(t.keys.projectApiKey);
  });

  it('reads and patches a project', async () => {
    const patched = await t.http.patch(`/api/projects/${t.keys.projectId}/`, { name: 'Renamed', app_urls: ['https://a.example'] });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('Renamed');
    expect(patched.body.app_urls).toEqual(['https://a.example']);
    const read = await t.http.get(`/api/projects/${t.keys.projectId}/`);
    expect(read.body.name).toBe('Renamed');
    expect(read.body.api_token).toBe(t.keys.projectApiKey);
  });

  it('accepts every IANA time zone name PostHog accepts, links included, and answers insights in it', async () => {
    for (const timezone of ['US/Pacific', 'Asia/Calcutta', 'Etc/GMT+5', 'GB', 'Europe/Kyiv']) {
      const patched = await t.http.patch(`/api/projects/${t.keys.projectId}/`, { timezone });
      expect([patched.status, patched.body.timezone]).toEqual([200, timezone]);
    }
    await t.http.patch(`/api/projects/${t.keys.projectId}/`, { timezone: 'US/Pacific' });
    const trend = await t.http.get(`/api/projects/${t.keys.projectId}/insights/trend/?events=${encodeURIComponent('[{"id":"$pageview"}]')}&date_from=2026-03-07&date_to=2026-03-09`);
    expect([trend.status, trend.body.timezone, trend.body.result[0].days]).toEqual([200, 'US/Pacific', ['2026-03-07', '2026-03-08', '2026-03-09']]);
    for (const timezone of ['Mars/Olympus', 'us/pacific', 'Factory']) {
      const refused = await t.http.patch(`/api/projects/${t.keys.projectId}/`, { timezone });
      expect(refused.status).toBe(400);
      // PostHog's own answer for a name outside its choices.
      expect(refused.body).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: `"${timezone}" is not a valid choice.`, attr: 'timezone' });
    }
    await t.http.patch(`/api/projects/${t.keys.projectId}/`, { timezone: 'UTC' });
  });

  it('refuses null for a project field instead of storing it', async () => {
    const res = await t.http.patch(`/api/projects/${t.keys.projectId}/`, { name: null });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code: 'null', detail: 'This field may not be null.', attr: 'name' });
  });

  it('lets members read but not create or change projects', async () => {
    expect((await t.http.get(`/api/projects/${t.keys.projectId}/`, { key: memberKey })).status).toBe(200);
    const denied = { type: 'authentication_error', code: 'permission_denied', detail: 'Your organization access level is insufficient.', attr: null };
    const create = await t.http.post('/api/projects/', { name: 'Nope' }, { key: memberKey });
    expect(create.status).toBe(403);
    expect(create.body).toEqual(denied);
    const patch = await t.http.patch(`/api/projects/${t.keys.projectId}/`, { name: 'Nope' }, { key: memberKey });
    expect(patch.status).toBe(403);
    expect(patch.body).toEqual(denied);
  });

  describe('pagination', () => {
    beforeAll(async () => {
      for (let i = 0; i < 5; i++) await t.http.post('/api/projects/', { name: `Paged ${i}` });
    });

    it('pages with absolute next/previous links that keep the other parameters', async () => {
      const first = await t.http.get('/api/projects/?limit=2&foo=bar');
      const total = first.body.count;
      expect(total).toBeGreaterThanOrEqual(6);
      expect(first.body.results).toHaveLength(2);
      expect(first.body.previous).toBeNull();
      expect(first.body.next).toBe(`${t.baseUrl}/api/projects/?limit=2&foo=bar&offset=2`);

      const second = await t.http.get(first.body.next.slice(t.baseUrl.length));
      expect(second.body.previous).toBe(`${t.baseUrl}/api/projects/?limit=2&foo=bar`);
      expect(second.body.next).toBe(`${t.baseUrl}/api/projects/?limit=2&foo=bar&offset=4`);
    });

    it('visits every project exactly once when following next', async () => {
      const seen: number[] = [];
      let path: string | null = '/api/projects/?limit=2';
      while (path) {
        const res: { body: { results: Array<{ id: number }>; next: string | null; count: number } } = await t.http.get(path);
        seen.push(...res.body.results.map((p) => p.id));
        path = res.body.next ? res.body.next.slice(t.baseUrl.length) : null;
      }
      const all = await t.sql<{ id: number }>('SELECT id FROM project ORDER BY id');
      expect(seen).toEqual(all.map((row) => row.id));
    });

    it('caps limit at 1000 and falls back to 100 for a bad limit', async () => {
      const capped = await t.http.get('/api/projects/?limit=5000&offset=1');
      expect(capped.body.previous).toBe(`${t.baseUrl}/api/projects/?limit=1000`);
      const fallback = await t.http.get('/api/projects/?limit=abc');
      expect(fallback.status).toBe(200);
      expect(fallback.body.results.length).toBe(fallback.body.count);
    });
  });
});
