import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Dashboards over these page views (UTC project):
 *
 *   Jan 1  ann (Chrome), ben (Safari)
 *   Jan 2  ann (Chrome), cal (Chrome)
 *   Jan 3  ben (Safari)
 *
 * Page views per day Jan 1–3: 2, 2, 1; Chrome only: 1, 2, 0.
 */
describe('Dashboards', () => {
  let t: TestApp;
  let base: string;
  const dateRange = { date_from: '2026-01-01', date_to: '2026-01-03' };
  const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange, interval: 'day' };
  const viz = (source: Record<string, unknown>) => ({ kind: 'InsightVizNode', source });
  const invalid = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await t.http.post(`${base}/${path}`, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const patch = async (path: string, body: Record<string, unknown>) => {
    const res = await t.http.patch(`${base}/${path}`, body);
    expect(res.status).toBe(200);
    return res.body;
  };
  const get = async (path: string) => {
    const res = await t.http.get(`${base}/${path}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  type Tile = { id: number; insight: { id: number; result: Array<{ data: number[] }> | null } | null; text: { body: string } | null; order: number };
  const data = (tile: Tile) => tile.insight?.result?.[0].data ?? null;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    const view = (distinct_id: string, day: number, $browser: string) => ({ event: '$pageview', distinct_id, timestamp: `2026-01-0${day}T10:00:00Z`, properties: { $browser } });
    await ingestBatch(t, t.keys.projectApiKey, [view('ann', 1, 'Chrome'), view('ben', 1, 'Safari'), view('ann', 2, 'Chrome'), view('cal', 2, 'Chrome'), view('ben', 3, 'Safari')]);
  });
  afterAll(() => t.close());

  it('lists dashboards pinned first, then by name, and searches them', async () => {
    await post('dashboards/', { name: 'Zebra', pinned: true });
    await post('dashboards/', { name: 'Alpha', description: 'the first one', tags: ['growth'] });
    await post('dashboards/', { name: 'Beta' });
    const list = await get('dashboards/');
    expect(list.results.map((d: { name: string }) => d.name)).toEqual(['Zebra', 'Alpha', 'Beta']);
    expect(list.results[0]).toMatchObject({ pinned: true, deleted: false, creation_mode: 'default', is_shared: false, restriction_level: 21, created_by: { email: expect.any(String) } });
    expect(Object.keys(list.results[0])).not.toContain('tiles');
    expect((await get('dashboards/?search=FIRST')).results.map((d: { name: string }) => d.name)).toEqual(['Alpha']);
    expect((await get('dashboards/?search=growth')).results.map((d: { name: string }) => d.name)).toEqual(['Alpha']);
  });

  it('puts insights on dashboards through the insight, and shows where each sits', async () => {
    const board = await post('dashboards/', { name: 'Traffic' });
    const insight = await post('insights/', { name: 'Views', query: viz(trends), dashboards: [board.id] });
    expect(insight.dashboards).toEqual([board.id]);
    expect(insight.dashboard_tiles).toEqual([{ id: expect.any(Number), dashboard_id: board.id, deleted: false }]);
    const other = await post('dashboards/', { name: 'Elsewhere' });
    const moved = await patch(`insights/${insight.id}/`, { dashboards: [other.id] });
    expect(moved.dashboards).toEqual([other.id]);
    expect(moved.dashboard_tiles.map((tile: { dashboard_id: number; deleted: boolean }) => [tile.dashboard_id, tile.deleted])).toEqual([[board.id, true], [other.id, false]]);
    const back = await patch(`insights/${insight.id}/`, { dashboards: [board.id, other.id] });
    expect(back.dashboards.sort()).toEqual([board.id, other.id].sort());
    expect(back.dashboard_tiles).toHaveLength(2);
    const onAll = async (ids: number[]) => (await get(`insights/?basic=true&dashboards=${JSON.stringify(ids)}`)).results.map((i: { id: number }) => i.id);
    expect([await onAll([board.id]), await onAll([board.id, other.id]), await onAll([board.id, 999999])]).toEqual([[insight.id], [insight.id], []]);
    const notIds = await t.http.get(`${base}/insights/?dashboards=traffic`);
    expect([notIds.status, notIds.body]).toEqual([400, invalid('dashboards must be a JSON list of at most 100 dashboard ids, e.g. [1, 2].', 'dashboards')]);
    const logged = await get(`insights/${insight.id}/activity/`);
    expect(logged.results.slice(0, 2).map((e: { detail: { changes: Array<{ field: string; before: unknown; after: unknown }> } }) => e.detail.changes)).toEqual([
      [{ type: 'Insight', action: 'changed', field: 'dashboards', before: [other.id], after: [board.id, other.id].sort((a, b) => a - b) }],
      [{ type: 'Insight', action: 'changed', field: 'dashboards', before: [board.id], after: [other.id] }],
    ]);
    const bad = await t.http.patch(`${base}/insights/${insight.id}/`, { dashboards: [999999] });
    expect([bad.status, bad.body]).toEqual([400, invalid('Dashboard 999999 does not exist in this project (or was deleted): give ids from /api/projects/:id/dashboards/.', 'dashboards')]);
  });

  it("computes each tile with the dashboard's filters over the insight's, each under its own cached result", async () => {
    const board = await post('dashboards/', { name: 'Chrome lately', filters: { date_from: '2026-01-02', date_to: '2026-01-03', properties: [{ key: '$browser', value: 'Chrome', type: 'event' }] } });
    const insight = await post('insights/', { name: 'Views on Chrome lately', query: viz(trends), dashboards: [board.id] });
    const untouched = await get(`dashboards/${board.id}/`);
    expect(data(untouched.tiles[0])).toBeNull();
    const shown = await get(`dashboards/${board.id}/?refresh=blocking`);
    expect(shown.filters).toEqual(board.filters);
    expect(data(shown.tiles[0])).toEqual([2, 0]);
    const asQuery = await t.http.post(`${base}/query/`, { query: { ...trends, dateRange: { date_from: '2026-01-02', date_to: '2026-01-03' }, properties: { type: 'AND', values: [{ key: '$browser', value: 'Chrome', type: 'event' }] } } });
    expect(shown.tiles[0].insight.result).toEqual(asQuery.body.results);
    expect([shown.tiles[0].is_cached, (await get(`dashboards/${board.id}/`)).tiles[0].is_cached]).toEqual([false, true]);
    // The insight alone asks its own question, cached apart from the tile's.
    expect((await get(`insights/${insight.id}/`)).result).toBeNull();
    expect((await get(`insights/${insight.id}/?refresh=blocking`)).result[0].data).toEqual([2, 2, 1]);
    // A read's override goes over the stored filters, for that read only.
    const override = encodeURIComponent(JSON.stringify({ date_from: '2026-01-01', properties: [] }));
    const wider = await get(`dashboards/${board.id}/?refresh=blocking&filters_override=${override}`);
    expect(data(wider.tiles[0])).toEqual([2, 2, 1]);
    expect(wider.persisted_filters).toEqual(board.filters);
  });

  it('shows a tile whose question no longer runs with the reason, and the other tiles as usual', async () => {
    const board = await post('dashboards/', { name: 'Resilient' });
    const action = await post('actions/', { name: 'Soon gone', steps: [{ event: '$pageview' }] });
    await post('insights/', { name: 'Of a deleted action', query: viz({ ...trends, series: [{ kind: 'ActionsNode', id: action.id }] }), dashboards: [board.id] });
    await post('insights/', { name: 'Still fine', query: viz(trends), dashboards: [board.id] });
    await patch(`actions/${action.id}/`, { deleted: true });
    const shown = await get(`dashboards/${board.id}/?refresh=force_blocking`);
    const byName = Object.fromEntries(shown.tiles.map((tile: { insight: { name: string; result: unknown; query_status: unknown } }) => [tile.insight.name, [tile.insight.result === null, tile.insight.query_status]]));
    expect(byName).toEqual({
      'Of a deleted action': [true, { error: true, error_message: expect.stringMatching(new RegExp(`^Action ${action.id} does not exist in this project`)) }],
      'Still fine': [false, null],
    });
    const alone = await t.http.get(`${base}/insights/?search=deleted%20action&refresh=force_blocking`);
    expect([alone.status, alone.body.results[0].query_status.error]).toEqual([200, true]);
  });

  it('adds text tiles, lays tiles out and orders them by their place in the grid', async () => {
    const board = await post('dashboards/', { name: 'Layout' });
    const insight = await post('insights/', { name: 'Laid out', query: viz(trends), dashboards: [board.id] });
    const withText = await patch(`dashboards/${board.id}/`, { tiles: [{ text: { body: 'Read me first' }, layouts: { sm: { x: 0, y: 0, w: 12, h: 2 } } }] });
    const [insightTile] = withText.tiles.filter((tile: Tile) => tile.insight !== null);
    const laid = await patch(`dashboards/${board.id}/`, { tiles: [{ id: insightTile.id, layouts: { sm: { x: 0, y: 2, w: 6, h: 5 } }, color: 'blue' }, { id: 999999, color: 'red' }] });
    expect(laid.tiles.map((tile: Tile) => [tile.order, tile.text?.body ?? tile.insight?.id])).toEqual([[0, 'Read me first'], [1, insight.id]]);
    expect(laid.tiles[1]).toMatchObject({ color: 'blue', layouts: { sm: { x: 0, y: 2, w: 6, h: 5 } } });
    const removed = await patch(`dashboards/${board.id}/`, { tiles: [{ id: laid.tiles[0].id, deleted: true }] });
    expect(removed.tiles.map((tile: Tile) => tile.insight?.id)).toEqual([insight.id]);
  });

  it('duplicates a dashboard with the same insights, or with copies of them', async () => {
    const board = await post('dashboards/', { name: 'Original' });
    const insight = await post('insights/', { name: 'Shared view', query: viz(trends), dashboards: [board.id] });
    const same = await post('dashboards/', { name: 'Same', use_dashboard: board.id });
    expect([same.creation_mode, same.tiles.map((tile: Tile) => tile.insight?.id)]).toEqual(['duplicate', [insight.id]]);
    const copied = await post('dashboards/', { name: 'Copied', use_dashboard: board.id, duplicate_tiles: true });
    expect(copied.tiles[0].insight.id).not.toBe(insight.id);
    expect(copied.tiles[0].insight).toMatchObject({ name: 'Shared view (Copy)', query: viz(trends), dashboards: [copied.id] });
  });

  it('soft-deletes a dashboard with its tiles, and its own insights if asked; restores both; refuses DELETE', async () => {
    const board = await post('dashboards/', { name: 'Doomed' });
    const keeper = await post('dashboards/', { name: 'Keeper' });
    const own = await post('insights/', { name: 'Only here', query: viz(trends), dashboards: [board.id] });
    const shared = await post('insights/', { name: 'Also on keeper', query: viz(trends), dashboards: [board.id, keeper.id] });
    expect((await t.http.delete(`${base}/dashboards/${board.id}/`)).status).toBe(405);
    const deleted = await patch(`dashboards/${board.id}/`, { deleted: true, delete_insights: true });
    expect(deleted.deleted).toBe(true);
    expect((await t.http.get(`${base}/dashboards/${board.id}/`)).status).toBe(404);
    expect((await t.http.get(`${base}/insights/${own.id}/`)).status).toBe(404);
    expect((await get(`insights/${shared.id}/`)).dashboards).toEqual([keeper.id]);
    const restored = await patch(`dashboards/${board.id}/`, { deleted: false });
    expect(restored.tiles.map((tile: Tile) => tile.insight?.id).sort()).toEqual([own.id, shared.id].sort());
    expect((await get(`insights/${own.id}/`)).dashboards).toEqual([board.id]);
    const activity = await get(`dashboards/${board.id}/activity/`);
    expect(activity.results.map((e: { activity: string }) => e.activity)).toEqual(['updated', 'deleted', 'created']);
  });

  it.each([
    ['filters that are no object', 'dashboards/', { name: 'x', filters: 'last week' }, invalid('filters must be an object: {date_from, date_to, properties, breakdown_filter}.', 'filters')],
    ['a filter it does not read', 'dashboards/', { name: 'x', filters: { date_form: '-7d' } }, invalid('filters has an unknown key date_form: use date_from, date_to, explicitDate, properties, breakdown_filter.', 'filters')],
    ['a property filter no query could run with', 'dashboards/', { name: 'x', filters: { properties: [{ key: '$browser', value: 'Chrome', operator: 'equals' }] } }, invalid(expect.stringMatching(/^filters: properties: Unknown operator "equals". Did you mean exact\?/) as unknown as string, 'filters')],
    ['a dashboard to copy that does not exist', 'dashboards/', { name: 'x', use_dashboard: 999999 }, invalid('Dashboard 999999 does not exist in this project (or was deleted).', 'use_dashboard')],
  ])('refuses %s with a 400 naming the field', async (_, path, body, expected) => {
    const res = await t.http.post(`${base}/${path}`, body);
    expect([res.status, res.body]).toEqual([400, expected]);
  });

  it('refuses malformed tile changes and overrides', async () => {
    const board = await post('dashboards/', { name: 'Strict' });
    const tiles = await t.http.patch(`${base}/dashboards/${board.id}/`, { tiles: [{ color: 'red' }] });
    expect([tiles.status, tiles.body]).toEqual([400, invalid('tiles[0] needs an id (a tile to change) or a text (a text tile to add).', 'tiles')]);
    const huge = await t.http.patch(`${base}/dashboards/${board.id}/`, { tiles: [{ id: 3_000_000_000, color: 'red' }] });
    expect([huge.status, huge.body]).toEqual([400, invalid('tiles[0].id must be a tile id.', 'tiles')]);
    const text = await t.http.patch(`${base}/dashboards/${board.id}/`, { tiles: [{ text: { body: 'x'.repeat(4001) } }] });
    expect([text.status, text.body]).toEqual([400, invalid('tiles[0].text.body must be at most 4000 characters.', 'tiles')]);
    const override = await t.http.get(`${base}/dashboards/${board.id}/?filters_override=%7Bnope`);
    expect([override.status, override.body]).toEqual([400, invalid('filters_override is not valid JSON: send {"date_from": "-30d"} URL-encoded.', 'filters_override')]);
    const alone = await t.http.patch(`${base}/dashboards/${board.id}/`, { delete_insights: true });
    expect([alone.status, alone.body]).toEqual([400, invalid('delete_insights goes with deleted: true.', 'delete_insights')]);
  });
});
