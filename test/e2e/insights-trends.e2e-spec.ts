import { ANALYTICS_ENGINE, AnalyticsEngine } from '../../src/modules/analytics/engine/analytics-engine';
import { sendJson } from '../support/capture-client';
import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl } from '../support/insights';

/**
 * Trends, stickiness and lifecycle over events ingested through /batch/, with every number computed by
 * hand from the events below (UTC project unless a test moves it):
 *
 *   alice      Jan 1 10:00, 11:00 ($pageview, Chrome, amount 10, 20), signed_up 12:00 (acme), Jan 3 09:00 (Firefox, 5)
 *   bob-anon   Jan 1 15:00 (Safari, 7), Jan 2 07:00 (Safari, 2); identified as bob Jan 2 08:00 (plan pro)
 *   bob        Jan 2 09:00 (Chrome, 3), Jan 4 09:00 (Chrome)
 *   carol      Jan 2 23:30 (Firefox, 1, plan free), signed_up 23:40 (beta), Jan 4 01:00 (Chrome)
 */
describe('Insights: trends, stickiness, lifecycle', () => {
  let t: TestApp;
  let base: string;
  const pv = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id, timestamp, properties });
  const trend = async (params: Record<string, unknown>) => {
    const res = await t.http.get(`${base}/insights/trend/?${q({ date_from: '2026-01-01', date_to: '2026-01-04', ...params })}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const people = (path: string) => followUrl(t, path);
  const names = (body: { results: Array<{ people: Array<{ name: string }> }> }) => body.results[0].people.map((p) => p.name);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    await ingestBatch(t, t.keys.projectApiKey, [
      pv('alice', '2026-01-01T10:00:00Z', { $browser: 'Chrome', amount: 10, $session_id: 's1', $set: { name: 'Alice Liddell' } }),
      pv('alice', '2026-01-01T11:00:00Z', { $browser: 'Chrome', amount: 20, $session_id: 's1' }),
      { event: 'signed_up', distinct_id: 'alice', timestamp: '2026-01-01T12:00:00Z', properties: { $groups: { company: 'acme' } } },
      { event: '$groupidentify', distinct_id: 'alice', timestamp: '2026-01-01T12:01:00Z', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } } },
      pv('bob-anon', '2026-01-01T15:00:00Z', { $browser: 'Safari', amount: 7, $session_id: 's2' }),
      pv('bob-anon', '2026-01-02T07:00:00Z', { $browser: 'Safari', amount: 2 }),
    ]);
    await ingestBatch(t, t.keys.projectApiKey, [
      { event: '$identify', distinct_id: 'bob', timestamp: '2026-01-02T08:00:00Z', properties: { $anon_distinct_id: 'bob-anon', $set: { email: 'bob@example.com', plan: 'pro' } } },
      pv('bob', '2026-01-02T09:00:00Z', { $browser: 'Chrome', amount: 3 }),
      pv('carol', '2026-01-02T23:30:00Z', { $browser: 'Firefox', amount: 1, $set: { email: 'carol@example.com', plan: 'free' } }),
      { event: 'signed_up', distinct_id: 'carol', timestamp: '2026-01-02T23:40:00Z', properties: { $groups: { company: 'beta' } } },
      pv('alice', '2026-01-03T09:00:00Z', { $browser: 'Firefox', amount: 5 }),
      pv('bob', '2026-01-04T09:00:00Z', { $browser: 'Chrome' }),
      pv('carol', '2026-01-04T01:00:00Z', { $browser: 'Chrome' }),
    ]);
  });
  afterAll(() => t.close());

  describe('trends', () => {
    it('counts total events per day with labels, days and the envelope', async () => {
      const body = await trend({ events: [{ id: '$pageview' }] });
      expect(Object.keys(body).sort()).toEqual(['is_cached', 'last_refresh', 'next', 'result', 'timezone']);
      expect(body.timezone).toBe('UTC');
      const [series] = body.result;
      expect(series.data).toEqual([3, 3, 1, 2]);
      expect(series.count).toBe(9);
      expect(series.labels).toEqual(['1-Jan-2026', '2-Jan-2026', '3-Jan-2026', '4-Jan-2026']);
      expect(series.days).toEqual(['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04']);
      expect(series.label).toBe('$pageview');
      expect(series.action).toMatchObject({ id: '$pageview', type: 'events', math: 'total', order: 0 });
    });

    it('counts a merged person once a day (dau) and lists that point\'s persons by value', async () => {
      const body = await trend({ events: [{ id: '$pageview', math: 'dau' }] });
      expect(body.result[0].data).toEqual([2, 2, 1, 2]);
      const persons = await people(body.result[0].persons_urls[1].url);
      expect(names(persons)).toEqual(['bob@example.com', 'carol@example.com']);
      expect(persons.results[0].people.map((p: { value_at_data_point: number }) => p.value_at_data_point)).toEqual([2, 1]);
      expect(persons.results[0].people[0]).toMatchObject({ type: 'person', distinct_ids: ['bob-anon', 'bob'], is_identified: true, matched_recordings: [] });
      expect(persons.results[0].people[0].id).toBe(persons.results[0].people[0].uuid);
      expect(persons).toMatchObject({ next: null, missing_persons: 0, is_cached: false });
    });

    it('counts weekly active users over the 7 days ending on each day', async () => {
      const body = await trend({ events: [{ id: '$pageview', math: 'weekly_active' }] });
      expect(body.result[0].data).toEqual([2, 3, 3, 3]);
      expect(names(await people(body.result[0].persons_urls[1].url)).sort()).toEqual(['Alice Liddell', 'bob@example.com', 'carol@example.com']);
    });

    it.each([
      ['sum', [37, 6, 5, 0]],
      ['avg', [37 / 3, 2, 5, 0]],
      ['min', [7, 1, 5, 0]],
      ['max', [20, 3, 5, 0]],
      ['median', [10, 2, 5, 0]],
      ['p90', [18, 2.8, 5, 0]],
    ])('aggregates a numeric property per day (%s)', async (math, expected) => {
      const body = await trend({ events: [{ id: '$pageview', math, math_property: 'amount' }] });
      expect(body.result[0].data.map((v: number) => Number(v.toFixed(6)))).toEqual(expected.map((v) => Number(v.toFixed(6))));
    });

    it('counts unique groups of a type', async () => {
      const body = await trend({ events: [{ id: 'signed_up', math: 'unique_group', math_group_type_index: 0 }] });
      expect(body.result[0].data).toEqual([1, 1, 0, 0]);
    });

    it('breaks down by an event property, most events first, and lists one line\'s persons', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], breakdown: '$browser' });
      expect(body.result.map((s: { breakdown_value: string; data: number[] }) => [s.breakdown_value, s.data])).toEqual([
        ['Chrome', [2, 1, 0, 2]],
        ['Firefox', [0, 1, 1, 0]],
        ['Safari', [1, 1, 0, 0]],
      ]);
      expect(body.result[0].label).toBe('$pageview - Chrome');
      expect(names(await people(body.result[0].persons_urls[3].url))).toEqual(['carol@example.com', 'bob@example.com']);
    });

    it('breaks down by a person property, missing values under PostHog\'s null marker', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], breakdown: 'plan', breakdown_type: 'person' });
      expect(body.result.map((s: { breakdown_value: string; count: number }) => [s.breakdown_value, s.count])).toEqual([
        ['pro', 4],
        ['$$_posthog_breakdown_null_$$', 3],
        ['free', 2],
      ]);
    });

    it('pages breakdown values with next, the values past each page in an Other line', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], breakdown: '$browser', breakdown_limit: 2 });
      expect(body.result.map((s: { breakdown_value: string }) => s.breakdown_value)).toEqual(['Chrome', 'Firefox', '$$_posthog_breakdown_other_$$']);
      const next = await people(body.next);
      expect(next.result.map((s: { breakdown_value: string }) => s.breakdown_value)).toEqual(['Safari']);
      expect(next.next).toBeNull();
    });

    it('compares with the previous period of the same length', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], date_from: '2026-01-03', compare: true });
      expect(body.result.map((s: { compare_label: string; data: number[] }) => [s.compare_label, s.data])).toEqual([
        ['current', [1, 2]],
        ['previous', [3, 3]],
      ]);
      expect(names(await people(body.result[1].persons_urls[0].url)).sort()).toEqual(['Alice Liddell', 'bob@example.com']);
    });

    it('combines series with a formula, dividing by zero as 0', async () => {
      const events = [{ id: '$pageview' }, { id: 'signed_up', order: 1 }];
      expect((await trend({ events, formula: 'A+B' })).result[0].data).toEqual([4, 4, 1, 2]);
      expect((await trend({ events, formula: 'A/B*100' })).result[0].data).toEqual([300, 300, 0, 0]);
    });

    it('shows one number per series for aggregate displays', async () => {
      expect((await trend({ events: [{ id: '$pageview' }], display: 'ActionsTable' })).result[0].aggregated_value).toBe(9);
      const dau = await trend({ events: [{ id: '$pageview', math: 'dau' }], display: 'BoldNumber' });
      expect(dau.result[0].aggregated_value).toBe(3);
      expect(names(await people(dau.result[0].persons.url))).toHaveLength(3);
    });

    it('runs cumulative totals and counts each person once at first sight', async () => {
      expect((await trend({ events: [{ id: '$pageview' }], display: 'ActionsLineGraphCumulative' })).result[0].data).toEqual([3, 6, 7, 9]);
      expect((await trend({ events: [{ id: '$pageview', math: 'dau' }], display: 'ActionsLineGraphCumulative' })).result[0].data).toEqual([2, 3, 3, 3]);
    });

    it('buckets by hour, week (from Sunday) and month', async () => {
      const hourly = await trend({ events: [{ id: '$pageview' }], interval: 'hour', date_from: '2026-01-01 10:00', date_to: '2026-01-01 12:00' });
      expect(hourly.result[0].data).toEqual([1, 1, 0]);
      expect(hourly.result[0].labels).toEqual(['1-Jan-2026 10:00', '1-Jan-2026 11:00', '1-Jan-2026 12:00']);
      const weekly = await trend({ events: [{ id: '$pageview' }], interval: 'week', date_to: '2026-01-10' });
      expect([weekly.result[0].days, weekly.result[0].data]).toEqual([['2025-12-28', '2026-01-04'], [7, 2]]);
      const monthly = await trend({ events: [{ id: '$pageview' }], interval: 'month', date_from: '2025-12-01', date_to: '2026-01-31' });
      expect([monthly.result[0].days, monthly.result[0].data]).toEqual([['2025-12-01', '2026-01-01'], [0, 9]]);
    });

    it('filters by event and person properties and searches persons', async () => {
      const chrome = await trend({ events: [{ id: '$pageview' }], properties: [{ key: '$browser', value: 'Chrome' }] });
      expect(chrome.result[0].data).toEqual([2, 1, 0, 2]);
      const pro = await trend({ events: [{ id: '$pageview', properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] });
      expect(pro.result[0].data).toEqual([1, 2, 0, 1]);
      const url = (await trend({ events: [{ id: '$pageview' }] })).result[0].persons_urls[0].url;
      expect(names(await people(`${url}&search=liddell`))).toEqual(['Alice Liddell']);
    });

    it('compares exact case-sensitively, as PostHog\'s insights do, where a flag with the same condition ignores case', async () => {
      const chrome = await trend({ events: [{ id: '$pageview' }], properties: [{ key: '$browser', value: 'chrome' }] });
      expect(chrome.result[0].data).toEqual([0, 0, 0, 0]);
      const notChrome = await trend({ events: [{ id: '$pageview' }], properties: [{ key: '$browser', value: 'chrome', operator: 'is_not' }] });
      expect(notChrome.result[0].data).toEqual([3, 3, 1, 2]);
      const pro = await trend({ events: [{ id: '$pageview', properties: [{ key: 'plan', value: 'PRO', type: 'person' }] }] });
      expect(pro.result[0].data).toEqual([0, 0, 0, 0]);
      const flag = { key: 'pro-any-case', filters: { groups: [{ properties: [{ key: 'plan', value: 'PRO', type: 'person', operator: 'exact' }], rollout_percentage: 100 }] } };
      expect((await t.http.post(`${base}/feature_flags/`, flag)).status).toBe(201);
      const flags = await sendJson(t, '/flags/?v=2', { api_key: t.keys.projectApiKey, distinct_id: 'bob' });
      expect(flags.body.flags['pro-any-case'].enabled).toBe(true);
    });

    it('pages the persons of a point with next, as PostHog builds it', async () => {
      const url = (await trend({ events: [{ id: '$pageview', math: 'dau' }] })).result[0].persons_urls[1].url;
      const first = await people(`${url}&limit=1`);
      expect(names(first)).toEqual(['bob@example.com']);
      expect(first.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/projects\/\d+\/persons\/trends\/\?.*&limit=1&offset=1$/);
      const second = await people(first.next);
      expect(names(second)).toEqual(['carol@example.com']);
      expect(second.next).toMatch(/^api\/projects\/\d+\/persons\/trends\/\?.*offset=2$/);
      expect((await people(second.next)).results[0].people).toEqual([]);
    });

    it('buckets in the project timezone', async () => {
      await t.http.patch(`${base}/`, { timezone: 'Asia/Tokyo' });
      try {
        const body = await trend({ events: [{ id: '$pageview' }] });
        expect(body.timezone).toBe('Asia/Tokyo');
        expect(body.result[0].data).toEqual([2, 3, 2, 2]);
      } finally {
        await t.http.patch(`${base}/`, { timezone: 'UTC' });
      }
    });

    it('serves a repeated query from the cache until refresh=true', async () => {
      const params = { events: [{ id: 'signed_up' }], date_from: '2026-01-02' };
      const first = await trend(params);
      const second = await trend(params);
      expect([first.is_cached, second.is_cached, second.last_refresh]).toEqual([false, true, first.last_refresh]);
      expect((await trend({ ...params, refresh: 'true' })).is_cached).toBe(false);
    });
  });

  describe('more series, breakdowns and filters', () => {
    const lines = (body: { result: Array<{ breakdown_value: unknown; data: number[] }> }) => body.result.map((s) => [s.breakdown_value, s.data]);

    it('counts every event for a series without an event name, and reads date_from=all', async () => {
      const body = await trend({ events: [{ id: null }], date_from: 'all' });
      expect([body.result[0].label, body.result[0].data]).toEqual(['All events', [5, 5, 1, 2]]);
    });

    it('counts unique sessions', async () => {
      expect((await trend({ events: [{ id: '$pageview', math: 'unique_session' }] })).result[0].data).toEqual([2, 0, 0, 0]);
    });

    it('breaks down by several properties at once, one line per combination', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], breakdowns: [{ property: '$browser' }, { property: 'plan', type: 'person' }] });
      expect(lines(body)).toEqual([
        [['Chrome', '$$_posthog_breakdown_null_$$'], [2, 0, 0, 0]],
        [['Chrome', 'pro'], [0, 1, 0, 1]],
        [['Safari', 'pro'], [1, 1, 0, 0]],
        [['Chrome', 'free'], [0, 0, 0, 1]],
        [['Firefox', '$$_posthog_breakdown_null_$$'], [0, 0, 1, 0]],
        [['Firefox', 'free'], [0, 1, 0, 0]],
      ]);
      const url = body.result[1].persons_urls[3].url;
      expect(names(await people(url))).toEqual(['bob@example.com']);
    });

    it('breaks down by a group property and filters by one', async () => {
      const body = await trend({ events: [{ id: 'signed_up' }], breakdown: 'name', breakdown_type: 'group', breakdown_group_type_index: 0 });
      expect(lines(body)).toEqual([
        ['$$_posthog_breakdown_null_$$', [0, 1, 0, 0]],
        ['Acme', [1, 0, 0, 0]],
      ]);
      const filtered = await trend({ events: [{ id: 'signed_up' }], properties: [{ key: 'name', value: 'Acme', type: 'group', group_type_index: 0 }] });
      expect(filtered.result[0].data).toEqual([1, 0, 0, 0]);
    });

    it('breaks down by cohorts, with all users', async () => {
      const cohort = await t.http.post(`${base}/cohorts/`, { name: 'Pro', filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } } });
      expect(cohort.status).toBe(201);
      const body = await trend({ events: [{ id: '$pageview' }], breakdown_type: 'cohort', breakdown: [cohort.body.id, 'all'] });
      expect(lines(body)).toEqual([
        [cohort.body.id, [1, 2, 0, 1]],
        ['all', [3, 3, 1, 2]],
      ]);
      expect(body.result.map((s: { label: string }) => s.label)).toEqual(['$pageview - Pro', '$pageview - all users']);
      expect(names(await people(body.result[0].persons_urls[1].url))).toEqual(['bob@example.com']);
    });

    it('shows one number per breakdown value on a world map', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], breakdown: '$browser', display: 'WorldMap' });
      expect(body.result.map((s: { breakdown_value: string; aggregated_value: number }) => [s.breakdown_value, s.aggregated_value])).toEqual([
        ['Chrome', 5],
        ['Firefox', 2],
        ['Safari', 2],
      ]);
    });

    it('leaves out test accounts by the project\'s filters when asked', async () => {
      const filters = [{ key: 'email', value: 'carol@example.com', operator: 'is_not', type: 'person' }];
      expect((await t.http.patch(`${base}/`, { test_account_filters: filters })).body.test_account_filters).toEqual(filters);
      try {
        expect((await trend({ events: [{ id: '$pageview' }], filter_test_accounts: true })).result[0].data).toEqual([3, 2, 1, 1]);
        expect((await trend({ events: [{ id: '$pageview' }] })).result[0].data).toEqual([3, 3, 1, 2]);
      } finally {
        await t.http.patch(`${base}/`, { test_account_filters: [] });
      }
      const bad = await t.http.patch(`${base}/`, { test_account_filters: [{ value: 1 }] });
      expect([bad.status, bad.body.attr]).toEqual([400, 'test_account_filters']);
    });
  });

  describe('stickiness and lifecycle', () => {
    it('counts persons by the number of days they were active', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], shown_as: 'Stickiness' });
      const [series] = body.result;
      expect([series.data, series.labels, series.days, series.count]).toEqual([[0, 2, 1, 0], ['1 day', '2 days', '3 days', '4 days'], [1, 2, 3, 4], 3]);
      expect(names(await people(series.persons_urls[1].url))).toEqual(['carol@example.com', 'Alice Liddell']);
    });

    it('classifies persons as new, returning, resurrecting and dormant per day', async () => {
      const body = await trend({ events: [{ id: '$pageview' }], shown_as: 'Lifecycle' });
      expect(body.result.map((s: { status: string; data: number[] }) => [s.status, s.data])).toEqual([
        ['new', [2, 1, 0, 0]],
        ['returning', [0, 1, 0, 0]],
        ['resurrecting', [0, 0, 1, 2]],
        ['dormant', [0, -1, -2, -1]],
      ]);
      const dormant = body.result[3];
      expect(names(await people(dormant.persons_urls[2].url))).toEqual(['carol@example.com', 'bob@example.com']);
      expect(names(await people(body.result[2].persons_urls[3].url))).toEqual(['carol@example.com', 'bob@example.com']);
    });
  });

  describe('the query API', () => {
    const run = async (query: Record<string, unknown>) => {
      const res = await t.http.post(`${base}/query/`, { query });
      expect(res.status).toBe(200);
      return res.body;
    };
    const dateRange = { date_from: '2026-01-01', date_to: '2026-01-04' };

    it('gives the legacy route\'s numbers for trends, stickiness and lifecycle', async () => {
      const series = [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }];
      expect((await run({ kind: 'TrendsQuery', series, dateRange })).results[0].data).toEqual([2, 2, 1, 2]);
      expect((await run({ kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange })).results[0].data).toEqual([0, 2, 1, 0]);
      const lifecycle = await run({ kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange });
      expect(lifecycle.results.map((s: { data: number[] }) => s.data)).toEqual([[2, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 2], [0, -1, -2, -1]]);
    });

    it('gives the legacy numbers for breakdowns, compare and formulas too', async () => {
      const legacy = await trend({ events: [{ id: '$pageview' }, { id: 'signed_up' }], breakdown: '$browser', compare: true, formula: 'A+B', date_from: '2026-01-03' });
      const query = await run({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }],
        dateRange: { date_from: '2026-01-03', date_to: '2026-01-04' },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
        compareFilter: { compare: true },
        trendsFilter: { formula: 'A+B' },
      });
      const shape = (result: Array<{ breakdown_value: string; compare_label: string; data: number[] }>) => result.map((s) => [s.breakdown_value, s.compare_label, s.data]);
      expect(shape(query.results)).toEqual(shape(legacy.result));
      expect(shape(query.results).length).toBeGreaterThan(0);
    });

    it('refuses a node it does not serve or an action that does not exist, naming the field', async () => {
      const res = await t.http.post(`${base}/query/`, { query: { kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: 1 }] } });
      const detail = 'Action 1 does not exist in this project (or was deleted): the id of an action from /api/projects/:id/actions/.';
      expect([res.status, res.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail, attr: 'series' }]);
      const kind = await t.http.post(`${base}/query/`, { query: { kind: 'HogQLQuery', query: 'select 1' } });
      expect([kind.status, kind.body.attr]).toEqual([400, 'kind']);
      // A kind that is no string at all, even one whose text cannot be made (an own `toString` that is no function).
      for (const odd of [{ toString: '' }, 'toString', 7]) {
        const oddKind = await t.http.post(`${base}/query/`, { query: { kind: odd } });
        expect([oddKind.status, oddKind.body.attr]).toEqual([400, 'kind']);
      }
    });

    it('lists the actors of one point through ActorsQuery over InsightActorsQuery', async () => {
      const source = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange };
      const body = await run({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source, day: '2026-01-02', series: 0 } });
      expect(body.columns).toEqual(['actor', 'event_count']);
      expect(body.results.map((row: [{ name: string }, number]) => [row[0].name, row[1]])).toEqual([['bob@example.com', 2], ['carol@example.com', 1]]);
      expect(body).toMatchObject({ hasMore: false, limit: 100, offset: 0 });
      const lifecycle = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange };
      const dormant = await run({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: lifecycle, day: '2026-01-03', status: 'dormant' } });
      expect(dormant.results.map((row: [{ name: string }]) => row[0].name)).toEqual(['carol@example.com', 'bob@example.com']);
      const options = await run({ kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: lifecycle } });
      expect(options.status.map((o: { value: string }) => o.value)).toEqual(['new', 'returning', 'resurrecting', 'dormant']);
      expect(options.day[0]).toEqual({ label: '1-Jan-2026', value: '2026-01-01' });
    });
  });

  describe('bad input', () => {
    const invalid = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });
    it.each([
      [{ events: '[{' }, invalid('events is not valid JSON: send a URL-encoded JSON value, e.g. events=[{"id":"$pageview"}].', 'events')],
      [{ events: [{ id: '$pageview', math: 'foo' }] }, invalid('math "foo" is not supported: use one of total, dau, weekly_active, monthly_active, unique_group, unique_session, sum, avg, min, max, median, p75, p90, p95, p99, avg_count_per_actor, min_count_per_actor, max_count_per_actor, median_count_per_actor, '
        + 'p75_count_per_actor, p90_count_per_actor, p95_count_per_actor, p99_count_per_actor, first_time_for_user, first_matching_event_for_user.', 'math')],
      [{ events: [{ id: '$pageview', math: 'sum' }] }, invalid('math "sum" needs math_property: the numeric event property to aggregate.', 'math_property')],
      [{ events: [{ id: '$pageview' }], display: 'Pie' }, invalid('display "Pie" is not supported: use one of ActionsLineGraph, ActionsLineGraphCumulative, ActionsAreaGraph, ActionsBar, ActionsStackedBar, ActionsTable, ActionsPie, ActionsBarValue, BoldNumber, WorldMap.', 'display')],
      [{ events: [{ id: '$pageview' }], interval: 'fortnight' }, invalid('interval "fortnight" is not supported: use one of minute, hour, day, week, month.', 'interval')],
      [{ events: [{ id: '$pageview' }], date_from: 'yesterday' }, invalid('date_from "yesterday" is not a date: use a date (2024-01-31), a date and time (2024-01-31T12:00:00Z) or a relative date (-7d, -24h, mStart, all).', 'date_from')],
      [{ events: [{ id: '$pageview' }], date_from: '2026-01-05', date_to: '2026-01-04' }, invalid('date_from (2026-01-05T00:00:00.000Z) is after date_to (2026-01-04T23:59:59.999Z): swap them or widen the range.', 'date_from')],
      [{ events: [{ id: '$pageview' }], interval: 'hour', date_from: '2020-01-01' }, invalid('This range has more than 10000 hour intervals: narrow date_from/date_to or use a longer interval.', 'interval')],
      [{ actions: [{ id: 1 }] }, invalid('Action 1 does not exist in this project (or was deleted): the id of an action from /api/projects/:id/actions/.', 'actions')],
      [{ events: [{ id: '$pageview' }], formula: 'A+' }, invalid('formula "A+" ends too early: use series letters (A, B, …), numbers, + - * / and parentheses.', 'formula')],
      [{ events: [{ id: '$pageview' }], formula: 'A+B' }, invalid('formula "A+B" uses series B, but there is 1 series: use series letters (A, B, …), numbers, + - * / and parentheses.', 'formula')],
      [{ events: [{ id: '$pageview' }], insight: 'FUNNELS' }, invalid('insight "FUNNELS" is not served here: use TRENDS, STICKINESS or LIFECYCLE (funnels, retention and paths have their own endpoints).', 'insight')],
      [{ events: [{ id: '$pageview' }], shown_as: 'Stick' }, invalid('shown_as "Stick" is not supported: use one of Volume, Stickiness, Lifecycle.', 'shown_as')],
      [{ event: '$pageview' }, invalid('Unknown parameter event: did you mean events?', 'event')],
      [{ events: [{ id: '$pageview' }], compare_to: '-1w' }, invalid('compare_to is not supported by this server: compare=true compares with the previous period of the same length.', 'compare_to')],
      [{ events: [{ id: '$pageview' }], smoothing_intervals: '7' }, invalid('smoothing_intervals is not supported by this server: leave it out (or 1) for the points as they are.', 'smoothing_intervals')],
      [{ events: [{ id: '$pageview' }], property: [{ key: '$browser', value: 'Chrome' }] }, invalid('Unknown parameter property: did you mean properties?', 'property')],
      [{ events: [{ id: '$pageview' }], date_form: '2026-01-01' }, invalid('Unknown parameter date_form: did you mean date_from?', 'date_form')],
      [{ events: [{ id: '$pageview' }], breakdown_limt: 5 }, invalid('Unknown parameter breakdown_limt: did you mean breakdown_limit?', 'breakdown_limt')],
    ])('refuses %j', async (params, expected) => {
      const res = await t.http.get(`${base}/insights/trend/?${q(params)}`);
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it("ignores parameters that look like none of PostHog's, and every display option its UI sends, as PostHog does", async () => {
      const params = { events: [{ id: '$pageview' }], utm_source: 'newsletter', _: '1767225600', show_legend: true, hidden_legend_keys: {}, client_query_id: 'abc', y_axis_scale_type: 'log10' };
      expect((await t.http.get(`${base}/insights/trend/?${q(params)}`)).status).toBe(200);
    });

    it('refuses a misspelt parameter on the other legacy routes too, the persons routes included', async () => {
      const funnel = await t.http.get(`${base}/insights/funnel/?${q({ events: [{ id: '$pageview' }, { id: 'signed_up' }], funnel_window_interval_units: 'day' })}`);
      expect([funnel.status, funnel.body]).toEqual([400, invalid('Unknown parameter funnel_window_interval_units: did you mean funnel_window_interval_unit?', 'funnel_window_interval_units')]);
      const persons = await t.http.get(`${base}/persons/trends/?${q({ events: [{ id: '$pageview' }], entity_id: '$pageview', date_from: '2026-01-01', date_to: '2026-01-01', entity_typ: 'events' })}`);
      expect([persons.status, persons.body]).toEqual([400, invalid('Unknown parameter entity_typ: did you mean entity_type?', 'entity_typ')]);
    });

    it('requires the point of stickiness and lifecycle persons', async () => {
      const events = q({ events: [{ id: '$pageview' }] });
      const sticky = await t.http.get(`${base}/persons/stickiness/?${events}`);
      expect([sticky.status, sticky.body.attr]).toEqual([400, 'stickiness_days']);
      const lifecycle = await t.http.get(`${base}/persons/lifecycle/?${events}&lifecycle_type=new`);
      expect([lifecycle.status, lifecycle.body.attr]).toEqual([400, 'target_date']);
      const status = await t.http.get(`${base}/persons/lifecycle/?${events}&target_date=2026-01-02&lifecycle_type=gone`);
      expect([status.status, status.body.attr]).toEqual([400, 'lifecycle_type']);
    });

    it('ends a query over the statement timeout with a 504 that says what to do', async () => {
      const slow = await startTestApp({ env: { ANALYTICS_QUERY_TIMEOUT_MS: '100', ANALYTICS_QUERY_MAX_THREADS: '1' } });
      try {
        // The copy's first build empties its tables before copying PostgreSQL: rows written straight into ClickHouse
        // before it ended would be emptied with them. An insight answers 200 once that build is done.
        const plain = `/api/projects/${slow.keys.projectId}/insights/trend/?${q({ events: [{ id: '$pageview' }] })}`;
        for (let attempt = 0; (await slow.http.get(plain)).status !== 200; attempt++) {
          expect(attempt).toBeLessThan(100);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        // Half a million events written straight into the app's ClickHouse tables, each with a 1 KB property that a
        // filter must parse and search, on one thread: each insight below takes the better part of a second or more
        // (over a microsecond a row), several times its 100 ms however idle the machine, while the rows compress to
        // almost nothing and go in quickly. Each has a person (none would leave funnels and paths no actor to read).
        await slow.app.get<AnalyticsEngine>(ANALYTICS_ENGINE).command({
          text: `INSERT INTO events (team_id, uuid, event, distinct_id, person_id, timestamp, properties, elements_chain, _batch)
            SELECT {team:Int64}, generateUUIDv4(), if(number % 2 = 0, '$pageview', 'signed_up'), concat('d', toString(number % 5000)), 1 + number % 5000,
              now64(6) - toIntervalSecond(number % 200000),
              concat('{"q": "', repeat('ab', 500), toString(number), '", "$current_url": "https://x/', toString(number % 97), '"}'), '', 0
            FROM numbers(500000)`,
          params: { team: slow.keys.projectId },
        });
        const filter = { properties: [{ key: 'q', value: 'zz', operator: 'icontains', type: 'event' }] };
        const res = await slow.http.get(`/api/projects/${slow.keys.projectId}/insights/trend/?${q({ events: [{ id: '$pageview' }], ...filter })}`);
        expect([res.status, res.body]).toEqual([
          504,
          {
            type: 'server_error',
            code: 'query_timeout',
            detail: 'The analytics query ran longer than the limit of 100 ms (ANALYTICS_QUERY_TIMEOUT_MS) and was stopped: narrow the date range, the filters or the breakdown.',
            attr: null,
          },
        ]);
        // Funnels and paths read each actor's events in one query: the same limit, the same answer.
        const steps = [{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }];
        const funnel = await slow.http.get(`/api/projects/${slow.keys.projectId}/insights/funnel/?${q({ events: steps, ...filter })}`);
        expect([funnel.status, funnel.body.code]).toEqual([504, 'query_timeout']);
        const paths = await slow.http.get(`/api/projects/${slow.keys.projectId}/insights/path/?${q(filter)}`);
        expect([paths.status, paths.body.code]).toEqual([504, 'query_timeout']);
      } finally {
        await slow.close();
      }
    }, 120_000);
  });
});
