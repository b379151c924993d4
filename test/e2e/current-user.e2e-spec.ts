import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '../support/test-app';

describe('Current user and personal keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    // Definitions are what ingestion records; @me exposes them on the team.
    await t.sql(
      `INSERT INTO event_definition (id, project_id, name) VALUES ($1, $3, '$pageview'), ($2, $3, 'signed_up')`,
      [randomUUID(), randomUUID(), t.keys.projectId],
    );
    await t.sql(`INSERT INTO property_definition (id, project_id, name, type) VALUES ($1, $2, '$browser', 1), ($3, $2, 'email', 2)`, [
      randomUUID(),
      t.keys.projectId,
      randomUUID(),
    ]);
  });
  afterAll(() => t.close());

  it('describes the caller, the current project with its api_token, and the organization', async () => {
    const res = await t.http.get('/api/users/@me/');
    expect(res.status).toBe(200);
    const [user] = await t.sql<{ id: number; uuid: string }>(`SELECT id, uuid FROM app_user`);
    expect(res.body).toMatchObject({
      id: user.id,
      uuid: user.uuid,
      distinct_id: user.uuid,
      email: 'admin@localhost',
      first_name: 'Admin',
      is_staff: false,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      team: {
        id: t.keys.projectId,
        project_id: t.keys.projectId,
        api_token: t.keys.projectApiKey,
        name: 'Default Project',
        timezone: 'UTC',
        app_urls: [],
        event_names: ['$pageview', 'signed_up'],
        event_properties: ['$browser'],
      },
      organization: {
        name: 'Default Organization',
        slug: 'default-organization',
        membership_level: 15,
        member_count: 1,
        teams: [expect.objectContaining({ id: t.keys.projectId, api_token: t.keys.projectApiKey })],
        projects: [{ id: t.keys.projectId, organization_id: res.body.organization.id, name: 'Default Project' }],
      },
      organizations: [
        {
          id: res.body.organization.id,
          name: 'Default Organization',
          slug: 'default-organization',
          logo_media_id: null,
          membership_level: 15,
          members_can_use_personal_api_keys: true,
        },
      ],
    });
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['date_joined', 'events_column_config', 'is_2fa_enabled']));
  });

  it('serves the deprecated /api/user/ with the same body and a Deprecation header', async () => {
    const legacy = await t.http.get('/api/user/');
    const current = await t.http.get('/api/users/@me/');
    expect(legacy.status).toBe(200);
    expect(legacy.body).toEqual(current.body);
    expect(legacy.headers.get('deprecation')).toBe('@1617580800');
    expect(legacy.headers.get('link')).toBe('</api/users/@me/>; rel="successor-version"');
  });

  it('lists personal keys masked, never with their secret', async () => {
    const res = await t.http.get('/api/personal_api_keys/');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect(res.body.results[0]).toEqual({
      id: expect.any(String),
      label: 'Bootstrap key',
      value: null,
      mask_value: `phx_...${t.keys.personalApiKey.slice(-4)}`,
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      user_id: expect.any(Number),
      scopes: ['*'],
      scoped_teams: [],
      scoped_organizations: [],
      last_rolled_at: null,
    });
    expect(res.text).not.toContain(t.keys.personalApiKey);
    const stored = await t.sql<{ secure_value: string }>('SELECT secure_value FROM personal_api_key');
    expect(stored[0].secure_value).toMatch(/^sha256\$[0-9a-f]{64}$/);
  });
});
