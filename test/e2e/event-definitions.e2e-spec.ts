import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Event definitions made by ingestion, read and edited through the API. */
describe('Event definitions API', () => {
  let t: TestApp;
  let base: string;
  let admin: { id: number; uuid: string; email: string };
  const send = (batch: Array<Record<string, unknown>>) => ingestBatch(t, t.keys.projectApiKey, batch);
  const list = async (query = '') => {
    const res = await t.http.get(`${base}/${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const names = (body: { results: Array<{ name: string }> }) => body.results.map((d) => d.name);
  const byName = async (name: string) => (await list(`?search=${encodeURIComponent(name)}`)).results.find((d: { name: string }) => d.name === name);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}/event_definitions`;
    [admin] = await t.sql('SELECT id, uuid, email FROM app_user WHERE email = $1', [t.keys.email]);
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * 86_400_000).toISOString();
    await send([
      ...Array.from({ length: 3 }, () => ({ event: 'watched_movie', distinct_id: 'u', timestamp: ago(1) })),
      { event: 'watched_movie', distinct_id: 'u', timestamp: ago(45) },
      { event: 'entered_free_trial', distinct_id: 'u', timestamp: ago(2) },
      { event: '$pageview', distinct_id: 'u', timestamp: ago(0) },
    ]);
  });
  afterAll(() => t.close());

  it('lists definitions with count, newest last_seen day first then by name, with every field', async () => {
    const body = await list();
    expect(body.count).toBe(3);
    expect(names(body)).toEqual(['$pageview', 'entered_free_trial', 'watched_movie']);
    expect(body.results[2]).toEqual({
      id: expect.stringMatching(UUID),
      name: 'watched_movie',
      owner: null,
      description: '',
      tags: [],
      volume_30_day: 3,
      query_usage_30_day: 0,
      created_at: expect.any(String),
      updated_at: null,
      updated_by: null,
      last_seen_at: expect.any(String),
      last_updated_at: expect.any(String),
      verified: false,
      verified_at: null,
      verified_by: null,
      is_action: false,
      action_id: null,
      is_calculating: false,
      last_calculated_at: null,
      created_by: null,
      post_to_chat: false,
    });
  });

  it('searches every term as a case-insensitive substring, filters event_type and orders as asked', async () => {
    expect(names(await list('?search=free%20TRI'))).toEqual(['entered_free_trial']);
    expect(names(await list('?search=ed%20mov'))).toEqual(['watched_movie']);
    expect(names(await list('?search=%25'))).toEqual([]);
    expect(names(await list('?event_type=event_custom&ordering=name'))).toEqual(['entered_free_trial', 'watched_movie']);
    expect(names(await list('?event_type=event_posthog'))).toEqual(['$pageview']);
    expect(names(await list('?ordering=-name'))).toEqual(['watched_movie', 'entered_free_trial', '$pageview']);
    const paged = await list('?ordering=name&limit=1&offset=1');
    expect(paged).toMatchObject({ count: 3, results: [{ name: 'entered_free_trial' }] });
    expect(paged.next).toContain('offset=2');
  });

  it('ignores orderings it does not know, Object.prototype names included, as DRF does', async () => {
    const byDefault = names(await list(''));
    for (const ordering of ['constructor', '-toString', '__proto__', 'valueOf,-hasOwnProperty', 'nonsense']) {
      expect(names(await list(`?ordering=${ordering}`))).toEqual(byDefault);
    }
    expect(names(await list('?ordering=constructor,-name'))).toEqual(['watched_movie', 'entered_free_trial', '$pageview']);
  });

  it('retrieves by uuid; anything else is 404', async () => {
    const definition = await byName('watched_movie');
    const res = await t.http.get(`${base}/${definition.id}/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(definition);
    expect((await t.http.get(`${base}/00000000-0000-4000-8000-000000000000/`)).status).toBe(404);
    expect((await t.http.get(`${base}/watched_movie/`)).status).toBe(404);
  });

  it('PATCH sets owner, description, normalised tags, verification and post_to_chat', async () => {
    const definition = await byName('entered_free_trial');
    const res = await t.http.patch(`${base}/${definition.id}/`, {
      owner: admin.id,
      description: 'Trial starts',
      tags: [' Growth', 'growth', 'Funnel '],
      verified: true,
      post_to_chat: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      owner: admin.id,
      description: 'Trial starts',
      tags: ['growth', 'funnel'],
      verified: true,
      verified_at: expect.any(String),
      verified_by: expect.objectContaining({ id: admin.id, email: admin.email }),
      updated_by: expect.objectContaining({ id: admin.id }),
      post_to_chat: true,
    });
    const again = await t.http.patch(`${base}/${definition.id}/`, { verified: true, description: 'Still' });
    expect(again.body.verified_at).toBe(res.body.verified_at);
    const cleared = await t.http.patch(`${base}/${definition.id}/`, { verified: false, owner: null });
    expect(cleared.body).toMatchObject({ verified: false, verified_at: null, verified_by: null, owner: null, description: 'Still' });
  });

  it('refuses an owner outside the organization and malformed fields with 400', async () => {
    const definition = await byName('watched_movie');
    const owner = await t.http.patch(`${base}/${definition.id}/`, { owner: 987654 });
    expect(owner.status).toBe(400);
    expect(owner.body).toEqual({ type: 'validation_error', code: 'does_not_exist', detail: 'Invalid pk "987654" - object does not exist.', attr: 'owner' });
    const tags = await t.http.patch(`${base}/${definition.id}/`, { tags: 'x' });
    expect(tags.status).toBe(400);
    expect(tags.body.attr).toBe('tags');
  });

  it('counts event-filtered queries in query_usage_30_day', async () => {
    const events = `/api/projects/${t.keys.projectId}/events`;
    expect((await t.http.get(`${events}/?event=watched_movie`)).status).toBe(200);
    expect((await t.http.get(`${events}/values/?key=x&event=watched_movie`)).status).toBe(200);
    expect((await t.http.get(`${events}/?event=never_seen`)).status).toBe(200);
    let usage = 0;
    for (let i = 0; i < 50 && usage < 2; i++) {
      usage = (await byName('watched_movie')).query_usage_30_day;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(usage).toBe(2);
    expect(await t.sql(`SELECT 1 FROM event_definition_daily WHERE name = 'never_seen'`)).toEqual([]);
  });
});
