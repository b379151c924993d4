import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Saved insights (`/api/projects/:id/insights/`) over these events (UTC project):
 *
 *   ann  Jan 1 $pageview, signed_up;  Jan 2 $pageview
 *   ben  Jan 1 $pageview;             Jan 3 $pageview, signed_up
 *   cal  Jan 2 $pageview
 *
 * Page views per day Jan 1–3: 2, 2, 1. Funnel $pageview → signed_up: 3 entered, 2 converted.
 */
describe('Saved insights', () => {
  let t: TestApp;
  let base: string;
  const dateRange = { date_from: '2026-01-01', date_to: '2026-01-03' };
  const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }], dateRange, interval: 'day' };
  const viz = (source: Record<string, unknown>) => ({ kind: 'InsightVizNode', source });
  const funnelFilters = { insight: 'FUNNELS', events: [{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }], ...dateRange };
  const invalid = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });
  const create = async (body: Record<string, unknown>) => {
    const res = await t.http.post(`${base}/insights/`, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const get = async (path: string) => {
    const res = await t.http.get(`${base}/insights/${path}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const query = async (node: Record<string, unknown>) => {
    const res = await t.http.post(`${base}/query/`, { query: node });
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    const at = (event: string, distinct_id: string, timestamp: string) => ({ event, distinct_id, timestamp, properties: {} });
    await ingestBatch(t, t.keys.projectApiKey, [
      at('$pageview', 'ann', '2026-01-01T10:00:00Z'), at('signed_up', 'ann', '2026-01-01T10:05:00Z'), at('$pageview', 'ann', '2026-01-02T10:00:00Z'),
      at('$pageview', 'ben', '2026-01-01T11:00:00Z'), at('$pageview', 'ben', '2026-01-03T11:00:00Z'), at('signed_up', 'ben', '2026-01-03T11:05:00Z'),
      at('$pageview', 'cal', '2026-01-02T12:00:00Z'),
    ]);
  });
  afterAll(() => t.close());

  it('saves a query with PostHog\'s fields, and serves no result until one is computed', async () => {
    const insight = await create({ name: 'Page views', description: 'Daily', query: viz(trends), tags: ['web'] });
    expect(insight).toMatchObject({
      name: 'Page views', derived_name: null, description: 'Daily', query: viz(trends), filters: {}, tags: ['web'], favorited: false, saved: true, deleted: false, order: null,
      dashboards: [], dashboard_tiles: [], result: null, last_refresh: null, cache_target_age: null, is_cached: false, timezone: 'UTC', query_status: null,
      created_by: { email: expect.any(String) }, last_modified_by: { email: expect.any(String) }, user_access_level: 'editor', alerts: [],
    });
    expect(insight.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect((await get(`${insight.short_id}/`)).id).toBe(insight.id);
    expect((await t.http.get(`/api/environments/${t.keys.projectId}/insights/${insight.id}/`)).status).toBe(200);
  });

  it('computes the result through the query API\'s engine as refresh asks, and keeps it', async () => {
    const insight = await create({ name: 'Views to compute', query: viz(trends) });
    const expected = (await query(trends)).results;
    expect(expected[0].data).toEqual([2, 2, 1]);
    const computed = await get(`${insight.id}/?refresh=blocking`);
    expect([computed.result, computed.is_cached]).toEqual([expected, false]);
    // Daily questions stay fresh for 6 hours; a client may ask again after 15 minutes.
    const at = Date.parse(computed.last_refresh);
    expect([Date.parse(computed.cache_target_age) - at, Date.parse(computed.next_allowed_client_refresh) - at]).toEqual([6 * 3600_000, 15 * 60_000]);
    const fresh = await get(`${insight.id}/?refresh=blocking`);
    expect([fresh.result, fresh.is_cached, fresh.last_refresh]).toEqual([expected, true, computed.last_refresh]);
    const cached = await get(`${insight.id}/`);
    expect([cached.result, cached.is_cached, cached.last_refresh]).toEqual([expected, true, computed.last_refresh]);
    const forced = await get(`${insight.id}/?refresh=true`);
    expect([forced.result, forced.is_cached]).toEqual([expected, false]);
    expect(Date.parse(forced.last_refresh)).toBeGreaterThanOrEqual(at);
  });

  it('reads a legacy filter as the query it stands for, with the same result as that query', async () => {
    const insight = await create({ name: 'Signup funnel', filters: funnelFilters });
    expect(insight.filters).toEqual({});
    expect(insight.query).toEqual({
      kind: 'InsightVizNode', full: true,
      source: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }], dateRange },
    });
    const computed = await get(`${insight.id}/?refresh=force_blocking`);
    expect(computed.result.map((step: { count: number }) => step.count)).toEqual([3, 2]);
    expect(computed.result).toEqual((await query(insight.query.source)).results);
  });

  it('lists insights with PostHog\'s filters, paging and the basic form', async () => {
    const mine = await create({ name: 'Favourite retention', favorited: true, query: viz({ kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 3 }, dateRange: { date_to: '2026-01-03' } }) });
    const names = async (params: string) => (await get(`?${params}`)).results.map((i: { name: string }) => i.name).sort();
    expect(await names('favorited=true')).toEqual(['Favourite retention']);
    expect(await names('insight=RETENTION')).toEqual(['Favourite retention']);
    expect(await names('insight=funnels')).toEqual(['Signup funnel']);
    expect(await names('search=PAGE%20VIEW')).toEqual(['Page views']);
    expect(await names('search=web')).toEqual(['Page views']);
    expect(await names(`short_id=${mine.short_id}`)).toEqual(['Favourite retention']);
    expect(await names(`created_by=[${mine.created_by.id}]`)).toHaveLength(4);
    expect(await names('created_by=[999999]')).toEqual([]);
    expect(await names('saved=false')).toEqual([]);
    const page = await get('?order=name&limit=2');
    expect([page.count, page.results.map((i: { name: string }) => i.name), page.next !== null]).toEqual([4, ['Favourite retention', 'Page views'], true]);
    const basic = await get('?basic=true&limit=1');
    expect(Object.keys(basic.results[0])).not.toContain('result');
    expect(basic.results[0]).toMatchObject({ filters: {}, refreshing: false, dashboards: [] });
  });

  it('soft-deletes and restores through PATCH, logs each change, and refuses DELETE', async () => {
    const insight = await create({ name: 'Draft', query: viz(trends) });
    const renamed = await t.http.patch(`${base}/insights/${insight.id}/`, { name: 'Weekly views', query: viz({ ...trends, interval: 'week' }) });
    expect([renamed.status, renamed.body.name, renamed.body.query.source.interval]).toEqual([200, 'Weekly views', 'week']);
    expect(Date.parse(renamed.body.last_modified_at)).toBeGreaterThanOrEqual(Date.parse(insight.last_modified_at));
    expect((await t.http.delete(`${base}/insights/${insight.id}/`)).status).toBe(405);
    const deleted = await t.http.patch(`${base}/insights/${insight.id}/`, { deleted: true });
    expect([deleted.status, deleted.body.deleted]).toEqual([200, true]);
    expect((await t.http.get(`${base}/insights/${insight.id}/`)).status).toBe(404);
    expect((await t.http.patch(`${base}/insights/${insight.id}/`, { name: 'Ghost' })).status).toBe(404);
    expect((await get('?search=Weekly')).results).toEqual([]);
    const restored = await t.http.patch(`${base}/insights/${insight.id}/`, { deleted: false });
    expect([restored.status, restored.body.deleted]).toEqual([200, false]);
    const activity = await get(`${insight.id}/activity/`);
    expect(activity.results.map((e: { activity: string }) => e.activity)).toEqual(['restored', 'deleted', 'updated', 'created']);
    expect(activity.results[2].detail).toMatchObject({ name: 'Weekly views', short_id: insight.short_id });
    expect(activity.results[2].detail.changes.map((c: { field: string }) => c.field).sort()).toEqual(['name', 'query']);
  });

  it.each([
    ['a query that is no InsightVizNode', { query: trends }, invalid('query must be an InsightVizNode: {"kind": "InsightVizNode", "source": {"kind": "TrendsQuery", …}} with a source of kind TrendsQuery, StickinessQuery, LifecycleQuery, FunnelsQuery, RetentionQuery, PathsQuery.', 'query')],
    ['a query that could not run', { query: viz({ ...trends, series: [{ kind: 'EventsNode', event: '$pageview', math: 'foo' }] }) }, invalid(expect.stringMatching(/^query: math "foo" is not supported: use one of total, dau/) as unknown as string, 'query')],
    ['a legacy filter naming no insight', { filters: { insight: 'SQL' } }, invalid('filters: filters.insight "SQL" is not an insight: use one of TRENDS, STICKINESS, LIFECYCLE, FUNNELS, RETENTION, PATHS.', 'filters')],
    ['a funnel of one step', { filters: { insight: 'FUNNELS', events: [{ id: '$pageview' }] } }, invalid(expect.stringMatching(/^filters: /) as unknown as string, 'filters')],
    ['a name that is no text', { name: 5, query: viz(trends) }, expect.objectContaining({ type: 'validation_error', attr: 'name' })],
    ['a dashboard id past the integers ids can be', { name: 'x', dashboards: [3_000_000_000] }, expect.objectContaining({ type: 'validation_error', attr: 'dashboards' })],
    ['an order past 32 bits', { name: 'x', order: 2 ** 31 }, expect.objectContaining({ type: 'validation_error', attr: 'order' })],
  ])('refuses %s with a 400 naming the field', async (_, body, expected) => {
    const res = await t.http.post(`${base}/insights/`, body);
    expect([res.status, res.body]).toEqual([400, expected]);
  });

  it('refuses a list order it cannot sort by, and created_by that is no list of ids', async () => {
    const order = await t.http.get(`${base}/insights/?order=-nme`);
    expect([order.status, order.body]).toEqual([400, invalid('order "-nme" is not a field to sort by. Did you mean name? Use one of order, id, name, created_at, updated_at, last_modified_at, favorited, with - for descending.', 'order')]);
    const createdBy = await t.http.get(`${base}/insights/?created_by=ann`);
    expect([createdBy.status, createdBy.body]).toEqual([400, invalid('created_by must be a JSON list of at most 100 user ids, e.g. [1, 2].', 'created_by')]);
    const huge = await t.http.get(`${base}/insights/?created_by=[3000000000]`);
    expect([huge.status, huge.body.attr]).toEqual([400, 'created_by']);
    expect((await t.http.get(`${base}/insights/nosuchid/`)).status).toBe(404);
  });
});
