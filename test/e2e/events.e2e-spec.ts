import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });

/** The events API over events stored by the real capture path. */
describe('Events API', () => {
  let t: TestApp;
  let base: string;
  const send = (batch: Array<Record<string, unknown>>) => ingestBatch(t, t.keys.projectApiKey, batch);
  const list = async (query = '') => {
    const res = await t.http.get(`${base}/${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const names = (body: { results: Array<{ event: string }> }) => body.results.map((e) => e.event);
  const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}/events`;
    await send([
      { event: 'signed_up', uuid: '018f0000-0000-7000-8000-000000000001', distinct_id: 'anon-1', timestamp: '2026-01-01T10:00:00.000Z', properties: { $browser: 'Chrome', plan: 'pro', n: 5 } },
      { event: '$pageview', distinct_id: 'anon-1', timestamp: '2026-01-01T11:00:00.000Z', properties: { $browser: 'Firefox', tags: ['a', 'b'], $current_url: '=HYPERLINK("x")' } },
      {
        event: '$autocapture',
        distinct_id: 'user-2',
        timestamp: '2026-01-01T12:00:00.000Z',
        properties: { $set: { email: 'two@example.com', secret: 's' }, $elements: [{ tag_name: 'button', attr__class: ['btn', 'primary'], $el_text: 'Buy "now"', nth_child: 1, nth_of_type: 2, attr__id: 'buy' }] },
      },
    ]);
    await send([{ event: '$identify', distinct_id: 'user-1', timestamp: '2026-01-01T13:00:00.000Z', properties: { $anon_distinct_id: 'anon-1', $set: { email: 'one@example.com' } } }]);
  });
  afterAll(() => t.close());

  it('lists events newest first with the event shape and the person summary', async () => {
    const body = await list();
    expect(Object.keys(body).sort()).toEqual(['next', 'results']);
    expect(names(body)).toEqual(['$identify', '$autocapture', '$pageview', 'signed_up']);
    expect(body.next).toBeNull();
    expect(body.results[3]).toEqual({
      id: '018f0000-0000-7000-8000-000000000001',
      distinct_id: 'anon-1',
      properties: expect.objectContaining({ $browser: 'Chrome', plan: 'pro', n: 5 }),
      event: 'signed_up',
      timestamp: '2026-01-01T10:00:00+00:00',
      person: { is_identified: true, distinct_ids: ['anon-1'], properties: { email: 'one@example.com' } },
      elements: [],
      elements_chain: '',
    });
    expect(body.results[1].elements).toEqual([
      {
        event: null,
        text: 'Buy "now"',
        tag_name: 'button',
        attr_class: ['btn', 'primary'],
        href: null,
        attr_id: 'buy',
        nth_child: 1,
        nth_of_type: 2,
        attributes: { attr__id: 'buy' },
        order: 0,
      },
    ]);
    expect(body.results[1].person).toEqual({ is_identified: false, distinct_ids: ['user-2'], properties: { email: 'two@example.com' } });
  });

  it('filters by event, distinct_id, person_id (id or uuid), after and before', async () => {
    expect(names(await list('?event=%24pageview'))).toEqual(['$pageview']);
    expect(names(await list('?distinct_id=user-2'))).toEqual(['$autocapture']);
    const [person] = await t.sql<{ id: string; uuid: string }>(`SELECT p.id, p.uuid FROM person p JOIN person_distinct_id d ON d.person_id = p.id WHERE d.distinct_id = 'user-1'`);
    expect(names(await list(`?person_id=${person.id}`))).toEqual(['$identify', '$pageview', 'signed_up']);
    expect(names(await list(`?person_id=${person.uuid}`))).toEqual(['$identify', '$pageview', 'signed_up']);
    expect((await list('?person_id=999999')).results).toEqual([]);
    expect((await list('?person_id=nonsense')).results).toEqual([]);
    expect(names(await list('?after=2026-01-01T11:00:00Z&before=2026-01-01T13:00:00%2B00:00'))).toEqual(['$autocapture']);
    expect(names(await list('?after=2026-01-01'))).toHaveLength(4);
    expect((await list('?after=-1d')).results).toEqual([]);
  });

  it('filters by event and person properties with bound values', async () => {
    const filter = (filters: unknown) => `?properties=${encodeURIComponent(JSON.stringify(filters))}`;
    expect(names(await list(filter([{ key: '$browser', value: 'Chrome' }])))).toEqual(['signed_up']);
    // Case-sensitive, as PostHog's events list; only flags ignore case.
    expect(names(await list(filter([{ key: '$browser', value: 'chrome' }])))).toEqual([]);
    expect(names(await list(filter([{ key: 'n', value: 4, operator: 'gt' }])))).toEqual(['signed_up']);
    expect(names(await list(filter([{ key: 'email', value: 'one@', operator: 'icontains', type: 'person' }])))).toEqual(['$identify', '$pageview', 'signed_up']);
    expect(names(await list(filter([{ key: 'email', operator: 'is_not_set', type: 'person' }])))).toEqual([]);
    const bad = await t.http.get(`${base}/?properties=%7Bnope`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(invalid('Properties are unparsable!'));
  });

  it('refuses unreadable dates and cursors with 400', async () => {
    for (const [query, attr] of [['?before=yesterday', 'before'], ['?after=2026-02-31', 'after'], ['?before_id=x', 'before_id']]) {
      const res = await t.http.get(`${base}/${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', attr });
    }
  });

  it('pages with next links that keep the filters and never repeat or skip events sharing a timestamp', async () => {
    const batch = Array.from({ length: 25 }, (_, i) => ({ event: 'tick', distinct_id: 'pager', timestamp: '2026-01-02T00:00:00.000Z', properties: { i } }));
    await send(batch);
    const seen: number[] = [];
    let path: string | null = `${base}/?event=tick&limit=10&offset=0`;
    let pages = 0;
    while (path) {
      const res: { status: number; body: any } = await t.http.get(path);
      expect(res.status).toBe(200);
      seen.push(...res.body.results.map((e: { properties: { i: number } }) => e.properties.i));
      path = res.body.next ? pathOf(res.body.next) : null;
      if (path) expect(new URL(res.body.next).searchParams.get('event')).toBe('tick');
      if (path) expect(new URL(res.body.next).searchParams.has('offset')).toBe(false);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('retrieves an event by uuid; 400 for a non-uuid, 404 for an unknown one', async () => {
    const res = await t.http.get(`${base}/018f0000-0000-7000-8000-000000000001/`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: '018f0000-0000-7000-8000-000000000001', event: 'signed_up', person: { distinct_ids: ['anon-1'] } });
    const bad = await t.http.get(`${base}/not-a-uuid/`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(invalid('Invalid UUID', null, 'invalid'));
    const missing = await t.http.get(`${base}/018f0000-0000-7000-8000-00000000ffff/`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'No events exist for event UUID 018f0000-0000-7000-8000-00000000ffff', attr: null });
  });

  it('lists values of an event property (lists flattened), narrowed by event; key is required', async () => {
    await send([
      { event: 'recent', distinct_id: 'v', properties: { color: 'red', sizes: ['s', 'm'] } },
      { event: 'recent', distinct_id: 'v', properties: { color: 'red', sizes: ['m'] } },
      { event: 'other', distinct_id: 'v', properties: { color: 'blue', sizes: 3 } },
    ]);
    expect((await t.http.get(`${base}/values/?key=color`)).body).toEqual([{ name: 'red' }, { name: 'blue' }]);
    expect((await t.http.get(`${base}/values/?key=color&event=other`)).body).toEqual([{ name: 'blue' }]);
    expect((await t.http.get(`${base}/values/?key=sizes&event_name=recent`)).body).toEqual([{ name: 'm' }, { name: 's' }]);
    expect((await t.http.get(`${base}/values/?key=color&value=RE`)).body).toEqual([{ name: 'red' }]);
    const missing = await t.http.get(`${base}/values/`);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(invalid('You must provide a key'));
  });
});
