import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q } from '../support/insights';

/**
 * Paths over page views ingested through /batch/ (UTC project, April 2026), computed by hand:
 *
 *   a    1st 10:00 /home/, 10:01 /pricing, 10:02 /pricing, 10:05 /signup, signed_up 10:06;
 *        then (55 minutes later: a new session) 11:00 /home, 11:10 /docs
 *   b    1st 12:00 /home, 12:01 /pricing, 12:03 /about
 *   c    2nd 09:00 /home, 09:02 /docs/intro, 09:04 /docs/api
 *   d    2nd 10:00 /home as d-anon; identified 10:01; 10:02 /pricing, 10:04 /signup as d (one person)
 *
 * Default edges (value, mean ms): 1_/home→2_/pricing (3; 120 s, 60 s, 120 s), 2_/pricing→3_/signup (2; 180 s,
 * 120 s), then one each: 1_/home→2_/docs (600 s), 1_/home→2_/docs/intro, 2_/docs/intro→3_/docs/api,
 * 2_/pricing→3_/about (120 s each). A repeat in a row collapses into its last occurrence (a's /pricing).
 */
describe('Insights: paths', () => {
  let t: TestApp;
  let base: string;
  const filter = (params: Record<string, unknown> = {}) => q({ date_from: '2026-04-01', date_to: '2026-04-30', ...params });
  const paths = async (params: Record<string, unknown> = {}) => {
    const res = await t.http.get(`${base}/insights/path/?${filter(params)}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  type Edge = { source: string; target: string; value: number; average_conversion_time: number };
  const edges = (body: { result: Edge[] }) => body.result.map((e) => [e.source, e.target, e.value, e.average_conversion_time]);
  const persons = async (params: Record<string, unknown>) => {
    const res = await t.http.get(`${base}/persons/path/?${filter(params)}`);
    expect(res.status).toBe(200);
    return res.body.results[0].people.map((p: { properties: { email: string } }) => p.properties.email).sort();
  };
  const S = 1000;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    const pv = (distinct_id: string, at: string, url: string, extra: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id, timestamp: `2026-04-${at}Z`, properties: { $current_url: url, ...extra } });
    const who = (name: string) => ({ $set: { email: `${name}@example.com` } });
    await ingestBatch(t, t.keys.projectApiKey, [
      pv('a', '01T10:00:00', '/home/', who('a')), pv('a', '01T10:01:00', '/pricing'), pv('a', '01T10:02:00', '/pricing'), pv('a', '01T10:05:00', '/signup'),
      { event: 'signed_up', distinct_id: 'a', timestamp: '2026-04-01T10:06:00Z', properties: {} },
      pv('a', '01T11:00:00', '/home'), pv('a', '01T11:10:00', '/docs'),
      pv('b', '01T12:00:00', '/home', who('b')), pv('b', '01T12:01:00', '/pricing'), pv('b', '01T12:03:00', '/about'),
      pv('c', '02T09:00:00', '/home', who('c')), pv('c', '02T09:02:00', '/docs/intro'), pv('c', '02T09:04:00', '/docs/api'),
      pv('d-anon', '02T10:00:00', '/home'),
    ]);
    await ingestBatch(t, t.keys.projectApiKey, [
      { event: '$identify', distinct_id: 'd', timestamp: '2026-04-02T10:01:00Z', properties: { $anon_distinct_id: 'd-anon', ...who('d') } },
      pv('d', '02T10:02:00', '/pricing'), pv('d', '02T10:04:00', '/signup'),
    ]);
  });
  afterAll(() => t.close());

  it('counts page-view edges with their mean conversion times, heaviest first', async () => {
    const body = await paths();
    expect(Object.keys(body).sort()).toEqual(['is_cached', 'last_refresh', 'result', 'timezone']);
    expect(edges(body)).toEqual([
      ['1_/home', '2_/pricing', 3, 100 * S], ['2_/pricing', '3_/signup', 2, 150 * S], ['1_/home', '2_/docs', 1, 600 * S],
      ['1_/home', '2_/docs/intro', 1, 120 * S], ['2_/docs/intro', '3_/docs/api', 1, 120 * S], ['2_/pricing', '3_/about', 1, 120 * S],
    ]);
  });

  it('groups items by wildcard and cleans them with regex rules', async () => {
    expect(edges(await paths({ path_groupings: ['/docs*'] }))).toEqual([
      ['1_/home', '2_/pricing', 3, 100 * S], ['1_/home', '2_/docs*', 2, 420 * S], ['2_/pricing', '3_/signup', 2, 150 * S], ['2_/pricing', '3_/about', 1, 120 * S],
    ]);
    const cleaned = await paths({ local_path_cleaning_filters: [{ regex: '^/docs/.*', alias: '/docs/<page>' }] });
    expect(edges(cleaned)).toContainEqual(['1_/home', '2_/docs/<page>', 1, 240 * S]);
    expect(cleaned.result).toHaveLength(5);
  });

  it('applies the project\'s path cleaning rules with path_replacements', async () => {
    const patched = await t.http.patch(`${base}/`, { path_cleaning_filters: [{ regex: '/pricing', alias: '/plans' }] });
    expect([patched.status, patched.body.path_cleaning_filters]).toEqual([200, [{ regex: '/pricing', alias: '/plans' }]]);
    expect(edges(await paths({ path_replacements: true }))[0]).toEqual(['1_/home', '2_/plans', 3, 100 * S]);
    expect(edges(await paths())[0]).toEqual(['1_/home', '2_/pricing', 3, 100 * S]);
    const bad = await t.http.patch(`${base}/`, { path_cleaning_filters: [{ regex: '(', alias: 'x' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe('path_cleaning_filters');
  });

  it('starts at a start point, ends at an end point and stops at the step limit', async () => {
    expect(edges(await paths({ start_point: '/pricing' }))).toEqual([['1_/pricing', '2_/signup', 2, 150 * S], ['1_/pricing', '2_/about', 1, 120 * S]]);
    expect(edges(await paths({ end_point: '/signup' }))).toEqual([['1_/home', '2_/pricing', 2, 120 * S], ['2_/pricing', '3_/signup', 2, 150 * S]]);
    expect(edges(await paths({ step_limit: 2 }))).toEqual([['1_/home', '2_/pricing', 3, 100 * S], ['1_/home', '2_/docs', 1, 600 * S], ['1_/home', '2_/docs/intro', 1, 120 * S]]);
  });

  it('limits and weighs edges, and leaves out excluded items', async () => {
    expect(edges(await paths({ edge_limit: 2 }))).toEqual([['1_/home', '2_/pricing', 3, 100 * S], ['2_/pricing', '3_/signup', 2, 150 * S]]);
    expect(edges(await paths({ min_edge_weight: 2 }))).toEqual([['1_/home', '2_/pricing', 3, 100 * S], ['2_/pricing', '3_/signup', 2, 150 * S]]);
    expect(edges(await paths({ max_edge_weight: 1 })).map((e) => e[2])).toEqual([1, 1, 1, 1]);
    expect(edges(await paths({ exclude_events: ['/pricing'] }))[0]).toEqual(['1_/home', '2_/signup', 2, 270 * S]);
  });

  it('includes custom events beside page views', async () => {
    expect(edges(await paths({ include_event_types: ['$pageview', 'custom_event'] }))).toContainEqual(['3_/signup', '4_signed_up', 1, 60 * S]);
    expect((await paths({ include_event_types: ['custom_event'] })).result).toEqual([]);
  });

  it('follows a funnel: paths before and after its step', async () => {
    const funnel = { events: [{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }], funnel_step: 2, date_from: '2026-04-01', date_to: '2026-04-30' };
    expect(edges(await paths({ funnel_paths: 'funnel_path_before_step', funnel_filter: funnel }))).toEqual([['1_/home', '2_/pricing', 1, 120 * S], ['2_/pricing', '3_/signup', 1, 180 * S]]);
    expect(edges(await paths({ funnel_paths: 'funnel_path_after_step', funnel_filter: funnel }))).toEqual([['1_/home', '2_/docs', 1, 600 * S]]);
  });

  it('follows a funnel whose step is an action', async () => {
    const action = await t.http.post(`${base}/actions/`, { name: 'Signed up', steps: [{ event: 'signed_up' }] });
    expect(action.status).toBe(201);
    const funnel = { events: [{ id: '$pageview', order: 0 }], actions: [{ id: action.body.id, type: 'actions', order: 1 }], funnel_step: 2, date_from: '2026-04-01', date_to: '2026-04-30' };
    expect(edges(await paths({ funnel_paths: 'funnel_path_before_step', funnel_filter: funnel }))).toEqual([['1_/home', '2_/pricing', 1, 120 * S], ['2_/pricing', '3_/signup', 1, 180 * S]]);
    const missing = await t.http.get(`${base}/insights/path/?${filter({ funnel_paths: 'funnel_path_after_step', funnel_filter: { ...funnel, actions: [{ id: action.body.id + 1000, order: 1 }] } })}`);
    expect([missing.status, missing.body.attr]).toEqual([400, 'actions']);
  });

  it('reads the range in the project timezone', async () => {
    await t.http.patch(`${base}/`, { timezone: 'Asia/Tokyo' });
    try {
      // 2 April in Tokyo starts at 1 April 15:00 UTC: only c and d.
      expect(edges(await paths({ date_from: '2026-04-02', refresh: true })).map((e) => [e[0], e[1]])).toEqual([
        ['1_/home', '2_/docs/intro'], ['1_/home', '2_/pricing'], ['2_/docs/intro', '3_/docs/api'], ['2_/pricing', '3_/signup'],
      ]);
    } finally {
      await t.http.patch(`${base}/`, { timezone: 'UTC' });
    }
  });

  it('lists the persons of a step, an edge and a drop-off', async () => {
    expect(await persons({ path_end_key: '3_/signup' })).toEqual(['a@example.com', 'd@example.com']);
    expect(await persons({ path_start_key: '1_/home', path_end_key: '2_/pricing' })).toEqual(['a@example.com', 'b@example.com', 'd@example.com']);
    expect(await persons({ path_dropoff_key: '3_/about' })).toEqual(['b@example.com']);
    expect(await persons({ path_dropoff_key: '2_/docs' })).toEqual(['a@example.com']);
    const res = await t.http.get(`${base}/persons/path/?${filter({ path_end_key: '3_/signup' })}`);
    expect(res.body.results[0].people.find((p: { distinct_ids: string[] }) => p.distinct_ids.includes('d')).distinct_ids.sort()).toEqual(['d', 'd-anon']);
  });

  it('answers PathsQuery and its actors like the legacy routes', async () => {
    const node = { kind: 'PathsQuery', dateRange: { date_from: '2026-04-01', date_to: '2026-04-30' }, pathsFilter: { includeEventTypes: ['$pageview'], pathGroupings: ['/docs*'] } };
    const res = await t.http.post(`${base}/query/`, { query: node });
    expect(res.status).toBe(200);
    expect(res.body.results.map((e: Edge) => [e.source, e.target, e.value])).toEqual([['1_/home', '2_/pricing', 3], ['1_/home', '2_/docs*', 2], ['2_/pricing', '3_/signup', 2], ['2_/pricing', '3_/about', 1]]);
    const actors = await t.http.post(`${base}/query/`, { query: { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: { ...node, pathsFilter: { ...node.pathsFilter, pathEndKey: '2_/docs*' } } } } });
    expect(actors.status).toBe(200);
    expect(actors.body.results.map((row: Array<{ properties: { email: string } }>) => row[0].properties.email).sort()).toEqual(['a@example.com', 'c@example.com']);
  });

  describe("PostHog's own cases (test_paths_query_runner_ee.py)", () => {
    const suite = (params: Record<string, unknown>, from: string, to: string) => q({ date_from: from, date_to: to, ...params });
    beforeAll(async () => {
      const pv = (distinct_id: string, timestamp: string, url: string) => ({ event: '$pageview', distinct_id, timestamp, properties: { $current_url: url } });
      await ingestBatch(t, t.keys.projectApiKey, [
        // test_step_limit: one person, four pages.
        pv('fake', '2012-01-01T03:21:34Z', '/1'), pv('fake', '2012-01-01T03:22:34Z', '/2'), pv('fake', '2012-01-01T03:24:34Z', '/3'), pv('fake', '2012-01-01T03:27:34Z', '/4'),
        // test_end: three persons, one minute between pages.
        ...['/1', '/2', '/3/', '/4/', '/5', '/about', '/after/'].map((url, i) => pv('person_1', `2021-05-01T00:0${i + 1}:00Z`, url)),
        pv('person_2', '2021-05-01T00:01:00Z', '/5'), pv('person_2', '2021-05-01T00:02:00Z', '/about'),
        ...['/3/', '/4', '/about/', '/after'].map((url, i) => pv('person_3', `2021-05-01T00:0${i + 1}:00Z`, url)),
      ]);
    });
    const stepLimitEdges = async (step_limit: number) => {
      const res = await t.http.get(`${base}/insights/path/?${suite({ step_limit }, '2012-01-01', '2012-01-07')}`);
      expect(res.status).toBe(200);
      return edges(res.body);
    };
    const stepLimitPersons = async (step_limit: number, path_start_key: string, path_end_key: string) => {
      const res = await t.http.get(`${base}/persons/path/?${suite({ step_limit, path_start_key, path_end_key }, '2012-01-01', '2012-01-07')}`);
      expect(res.status).toBe(200);
      return res.body.results[0].people.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]);
    };

    it('stops edges and their persons at the step limit (test_step_limit)', async () => {
      expect(await stepLimitEdges(2)).toEqual([['1_/1', '2_/2', 1, 60 * S]]);
      expect(await stepLimitPersons(2, '1_/1', '2_/2')).toEqual(['fake']);
      expect(await stepLimitPersons(2, '2_/2', '3_/3')).toEqual([]);
      expect(await stepLimitEdges(3)).toEqual([['1_/1', '2_/2', 1, 60 * S], ['2_/2', '3_/3', 1, 120 * S]]);
      expect(await stepLimitPersons(3, '2_/2', '3_/3')).toEqual(['fake']);
      expect(await stepLimitEdges(4)).toEqual([['1_/1', '2_/2', 1, 60 * S], ['2_/2', '3_/3', 1, 120 * S], ['3_/3', '4_/4', 1, 180 * S]]);
      expect(await stepLimitPersons(4, '3_/3', '4_/4')).toEqual(['fake']);
    });

    it('lists the edges that lead to an end point, the last steps of each path (test_end)', async () => {
      const expected = [
        ['1_/2', '2_/3', 1, 60 * S], ['1_/3', '2_/4', 1, 60 * S], ['1_/5', '2_/about', 1, 60 * S], ['2_/3', '3_/4', 1, 60 * S],
        ['2_/4', '3_/about', 1, 60 * S], ['3_/4', '4_/5', 1, 60 * S], ['4_/5', '5_/about', 1, 60 * S],
      ];
      for (const end_point of ['/about', '/about/']) {
        const res = await t.http.get(`${base}/insights/path/?${suite({ end_point }, '2021-05-01', '2021-05-07')}`);
        expect(res.status).toBe(200);
        expect(edges(res.body)).toEqual(expected);
      }
    });
  });

  describe('bad input', () => {
    const invalid = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });
    it.each([
      ['a step limit past 20', { step_limit: 21 }, invalid('step_limit must be an integer from 1 to 20 (got "21").', 'step_limit')],
      ['a zero edge limit', { edge_limit: 0 }, invalid('edge_limit must be an integer from 1 to 10000 (got "0").', 'edge_limit')],
      ['an unknown event type', { include_event_types: ['hogql'] }, invalid('include_event_types "hogql" is not supported: use $pageview, $screen, custom_event.', 'include_event_types')],
      ['custom events twice', { include_event_types: ['custom_event'], include_custom_events: ['signed_up'] }, invalid('include_custom_events lists events that custom_event already includes: give one or the other.', 'include_custom_events')],
      ['a regex that does not compile', { local_path_cleaning_filters: [{ regex: '(unclosed', alias: 'x' }] }, invalid('local_path_cleaning_filters rule 0\'s regex "(unclosed" does not compile (error parsing regexp: missing closing ): `(unclosed`).', 'local_path_cleaning_filters')],
      ['malformed groupings', { path_groupings: '["/docs*"' }, invalid('path_groupings is not valid JSON: send a URL-encoded JSON value, e.g. path_groupings=[{"id":"$pageview"}].', 'path_groupings')],
      ['a funnel path without its funnel', { funnel_paths: 'funnel_path_after_step' }, invalid('funnel_paths needs funnel_filter: the funnel (events, funnel_step, …) as a JSON object.', 'funnel_filter')],
    ])('refuses %s', async (_, params, expected) => {
      const res = await t.http.get(`${base}/insights/path/?${filter(params)}`);
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it('refuses a path key that is malformed or names no step', async () => {
      const malformed = await t.http.get(`${base}/persons/path/?${filter({ path_start_key: 'pricing' })}`);
      expect([malformed.status, malformed.body]).toEqual([400, invalid('path_start_key must be a path key: the step number, an underscore and the item, e.g. 2_/pricing.', 'path_start_key')]);
      const unknown = await t.http.get(`${base}/persons/path/?${filter({ path_end_key: '9_/nowhere' })}`);
      expect([unknown.status, unknown.body]).toEqual([400, invalid('path_end_key "9_/nowhere" names an item no path visits: take keys from the insight\'s edges.', 'path_end_key')]);
    });
  });
});
