import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl } from '../support/insights';

/**
 * Funnels over events ingested through /batch/, every number computed by hand from these journeys
 * (UTC project, January 2026; steps $pageview → signed_up → purchase, default window 14 days; browsers in
 * brackets, plan and company where set):
 *
 *   alice (pro, acme)  pv 1st 10:00 [Chrome], signed_up 10:05 (+300 s) [Safari], purchase 11:05 (+3600 s)  → 3 steps
 *   bob (free)         pv 2nd 09:00 [Firefox], logout 09:10, purchase 09:30, signed_up 10:00 (+3600 s) [Firefox] → 2 (ordered)
 *   carol              pv 3rd 12:00 [Chrome], signed_up 20th 12:00 (17 days: outside the window), logout 18th → 1
 *   dave-anon          pv 4th 08:00 [Safari]; $identify as dave 08:10; dave signed_up 08:20 (+1200 s, acme),
 *                      purchase 09:20 (+3600 s) [Chrome] (acme)                                               → 3
 *   erin               signed_up 5th only [Edge]                                                              → not in an ordered funnel
 *   frank (beta)       pv 6th 10:00 [Firefox] and 10:10 [Chrome], signed_up 10:20 [Chrome], purchase 10:30 [Chrome]:
 *                      two best runs (1200 + 600 s, 600 + 600 s)                                              → 3
 *   admin              $groupidentify of acme and beta (personless, in no funnel)
 */
describe('Insights: funnels', () => {
  let t: TestApp;
  let base: string;
  const STEPS = [{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }, { id: 'purchase', order: 2 }];
  const at = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
  const filter = (params: Record<string, unknown> = {}) => q({ events: STEPS, date_from: '2026-01-01', date_to: '2026-01-31', ...params });
  const funnel = async (params: Record<string, unknown> = {}) => {
    const res = await t.http.get(`${base}/insights/funnel/?${filter(params)}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const counts = (body: { result: Array<{ count: number }> }) => body.result.map((s) => s.count);
  const get = (path: string) => followUrl(t, path);
  const emails = (body: { results: Array<{ people: Array<{ properties: { email: string } }> }> }) => body.results[0].people.map((p) => p.properties.email).sort();
  const persons = (params: Record<string, unknown>) => get(`${base}/persons/funnel/?${filter(params)}`);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    const who = (name: string, extra: Record<string, unknown> = {}) => ({ $set: { email: `${name}@example.com`, ...extra } });
    const browser = (name: string) => ({ $browser: name });
    const company = (key: string) => ({ $groups: { company: key } });
    await ingestBatch(t, t.keys.projectApiKey, [
      at('$groupidentify', 'admin', '2025-12-31T00:00:00Z', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } }),
      at('$groupidentify', 'admin', '2025-12-31T00:00:01Z', { $group_type: 'company', $group_key: 'beta', $group_set: { name: 'Beta' } }),
      at('$pageview', 'alice', '2026-01-01T10:00:00Z', { ...who('alice', { plan: 'pro' }), ...browser('Chrome'), ...company('acme') }),
      at('signed_up', 'alice', '2026-01-01T10:05:00Z', { ...browser('Safari'), ...company('acme') }),
      at('purchase', 'alice', '2026-01-01T11:05:00Z'),
      at('$pageview', 'bob', '2026-01-02T09:00:00Z', { ...who('bob', { plan: 'free' }), ...browser('Firefox') }),
      at('logout', 'bob', '2026-01-02T09:10:00Z'),
      at('purchase', 'bob', '2026-01-02T09:30:00Z'),
      at('signed_up', 'bob', '2026-01-02T10:00:00Z', browser('Firefox')),
      at('$pageview', 'carol', '2026-01-03T12:00:00Z', { ...who('carol'), ...browser('Chrome') }),
      at('logout', 'carol', '2026-01-18T12:00:00Z'),
      at('signed_up', 'carol', '2026-01-20T12:00:00Z'),
      at('$pageview', 'dave-anon', '2026-01-04T08:00:00Z', browser('Safari')),
    ]);
    await ingestBatch(t, t.keys.projectApiKey, [
      at('$identify', 'dave', '2026-01-04T08:10:00Z', { $anon_distinct_id: 'dave-anon', ...who('dave') }),
      at('signed_up', 'dave', '2026-01-04T08:20:00Z', company('acme')),
      at('purchase', 'dave', '2026-01-04T09:20:00Z', { ...browser('Chrome'), ...company('acme') }),
      at('signed_up', 'erin', '2026-01-05T10:00:00Z', { ...who('erin'), ...browser('Edge') }),
      at('$pageview', 'frank', '2026-01-06T10:00:00Z', { ...who('frank'), ...browser('Firefox'), ...company('beta') }),
      at('$pageview', 'frank', '2026-01-06T10:10:00Z', { ...browser('Chrome'), ...company('beta') }),
      at('signed_up', 'frank', '2026-01-06T10:20:00Z', { ...browser('Chrome'), ...company('beta') }),
      at('purchase', 'frank', '2026-01-06T10:30:00Z', { ...browser('Chrome'), ...company('beta') }),
    ]);
  });
  afterAll(() => t.close());

  describe('steps', () => {
    it('counts ordered steps with their conversion times, names and people URLs', async () => {
      const body = await funnel();
      expect(Object.keys(body).sort()).toEqual(['is_cached', 'last_refresh', 'result', 'timezone']);
      expect(counts(body)).toEqual([5, 4, 3]);
      const [first, second, third] = body.result;
      expect(first).toMatchObject({ action_id: '$pageview', name: '$pageview', custom_name: null, order: 0, people: [], type: 'events', average_conversion_time: null, median_conversion_time: null, dropped_people_url: null });
      // signed_up: alice 300, bob 3600, dave 1200, frank (1200 + 600) / 2 = 900.
      expect(second).toMatchObject({ action_id: 'signed_up', average_conversion_time: 1500, median_conversion_time: 1050 });
      // purchase: alice 3600, dave 3600, frank 600.
      expect(third).toMatchObject({ action_id: 'purchase', average_conversion_time: 2600, median_conversion_time: 3600 });
      expect(third.converted_people_url).toMatch(new RegExp(`^api/projects/${t.keys.projectId}/persons/funnel/\\?.*funnel_step=3`));
    });

    it('counts strict funnels, where any other event between two steps breaks the sequence', async () => {
      const body = await funnel({ funnel_order_type: 'strict' });
      // bob: purchase follows the page view; dave: $identify does; carol: outside the window.
      expect(counts(body)).toEqual([5, 2, 2]);
      expect(body.result[1]).toMatchObject({ average_conversion_time: 450, median_conversion_time: 450 });
      expect(body.result[2]).toMatchObject({ average_conversion_time: 2100, median_conversion_time: 2100 });
    });

    it('counts unordered funnels, where any step may come first', async () => {
      const body = await funnel({ funnel_order_type: 'unordered' });
      // erin's signed_up starts a run of one step; bob's three steps all fall inside one window.
      expect(counts(body)).toEqual([6, 4, 4]);
      expect(body.result.map((s: { name: string }) => s.name)).toEqual(['Completed 1 step', 'Completed 2 steps', 'Completed 3 steps']);
      expect(body.result[0].action_id).toBeNull();
      // Times between the sorted steps: alice 300/3600, bob 1800/1800, dave 1200/3600, frank 900/600.
      expect(body.result[1]).toMatchObject({ average_conversion_time: 1050, median_conversion_time: 1050 });
      expect(body.result[2]).toMatchObject({ average_conversion_time: 2400, median_conversion_time: 2700 });
    });

    it('honours windows in seconds, hours and days (and the legacy funnel_window_days)', async () => {
      expect(counts(await funnel({ funnel_window_interval: 600, funnel_window_interval_unit: 'second' }))).toEqual([5, 2, 0]);
      expect(counts(await funnel({ funnel_window_interval: 1, funnel_window_interval_unit: 'hour' }))).toEqual([5, 4, 1]);
      expect(counts(await funnel({ funnel_window_interval: 20, funnel_window_interval_unit: 'day' }))).toEqual([5, 5, 3]);
      expect(counts(await funnel({ funnel_window_days: 20 }))).toEqual([5, 5, 3]);
    });

    it('drops runs with an exclusion event between its steps, but not one outside the window', async () => {
      const body = await funnel({ exclusions: [{ id: 'logout', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }] });
      // bob logged out between page view and sign-up; carol's logout comes after her window ended.
      expect(counts(body)).toEqual([4, 3, 3]);
    });

    it('reads the dates in the project timezone', async () => {
      await t.http.patch(`${base}/`, { timezone: 'Asia/Tokyo' });
      try {
        // 2 January in Tokyo starts at 1 January 15:00 UTC, after alice's journey.
        const body = await funnel({ date_from: '2026-01-02', refresh: true });
        expect(body.timezone).toBe('Asia/Tokyo');
        expect(counts(body)).toEqual([4, 3, 2]);
      } finally {
        await t.http.patch(`${base}/`, { timezone: 'UTC' });
      }
    });

    it('serves the same funnel from a JSON body and from the cache', async () => {
      const res = await t.http.post(`${base}/insights/funnel/`, { events: STEPS, date_from: '2026-01-01', date_to: '2026-01-31', funnel_order_type: 'strict' });
      expect(res.status).toBe(200);
      expect(counts(res.body)).toEqual([5, 2, 2]);
      expect(res.body.is_cached).toBe(true);
    });
  });

  describe('persons', () => {
    it('lists who reached a step, through the insight\'s own URLs', async () => {
      const body = await funnel();
      expect(emails(await get(body.result[2].converted_people_url))).toEqual(['alice@example.com', 'dave@example.com', 'frank@example.com']);
      expect(emails(await get(body.result[1].dropped_people_url))).toEqual(['carol@example.com']);
      expect(emails(await get(body.result[2].dropped_people_url))).toEqual(['bob@example.com']);
    });

    it('counts a merged person\'s steps under both distinct ids as one journey', async () => {
      const reply = await persons({ funnel_step: 3, search: 'dave' });
      expect(reply.results[0].people).toHaveLength(1);
      expect(reply.results[0].people[0].distinct_ids.sort()).toEqual(['dave', 'dave-anon']);
    });

    it('selects exact step counts with funnel_custom_steps', async () => {
      expect(emails(await persons({ funnel_custom_steps: [1, 3] }))).toEqual(['alice@example.com', 'carol@example.com', 'dave@example.com', 'frank@example.com']);
    });

    it('pages with limit and a next link', async () => {
      const first = await persons({ funnel_step: 1, limit: 3 });
      expect(first.results[0].people).toHaveLength(3);
      expect(first.next).toContain('offset=3');
      const second = await get(first.next);
      expect(second.results[0].people).toHaveLength(2);
      expect(second.next).toBeNull();
      expect([...emails(first), ...emails(second)].sort()).toEqual(['alice', 'bob', 'carol', 'dave', 'frank'].map((n) => `${n}@example.com`));
    });
  });

  describe('breakdowns', () => {
    /** Each line as [breakdown_value, counts]. */
    const lines = (body: { result: Array<Array<{ count: number; breakdown_value: unknown }>> }) => body.result.map((steps) => [steps[0].breakdown_value, steps.map((s) => s.count)]);
    const NULL = '$$_posthog_breakdown_null_$$';

    it('breaks down by the first step\'s event property (first touch, the default)', async () => {
      const body = await funnel({ breakdown: '$browser' });
      expect(lines(body)).toEqual([['Chrome', [2, 1, 1]], ['Firefox', [2, 2, 1]], ['Safari', [1, 1, 1]]]);
      expect(body.result[1][2]).toMatchObject({ breakdown: 'Firefox', breakdown_value: 'Firefox', average_conversion_time: 600 });
      expect(emails(await get(body.result[1][1].converted_people_url))).toEqual(['bob@example.com', 'frank@example.com']);
    });

    it('attributes to the last step event (last touch)', async () => {
      expect(lines(await funnel({ breakdown: '$browser', breakdown_attribution_type: 'last_touch' }))).toEqual([[NULL, [2, 1, 1]], ['Chrome', [2, 2, 2]], ['Firefox', [1, 1, 0]]]);
    });

    it('attributes to a chosen step (step attribution)', async () => {
      const body = await funnel({ breakdown: '$browser', breakdown_attribution_type: 'step', breakdown_attribution_value: 1 });
      expect(lines(body)).toEqual([[NULL, [2, 1, 1]], ['Chrome', [1, 1, 1]], ['Firefox', [1, 1, 0]], ['Safari', [1, 1, 1]]]);
    });

    it('runs the funnel per value over the events carrying it (all events)', async () => {
      expect(lines(await funnel({ breakdown: '$browser', breakdown_attribution_type: 'all_events' }))).toEqual([['Chrome', [3, 1, 1]], ['Firefox', [2, 1, 0]], ['Safari', [1, 0, 0]]]);
    });

    it('breaks down by a person property and by several properties', async () => {
      expect(lines(await funnel({ breakdown: 'plan', breakdown_type: 'person' }))).toEqual([[NULL, [3, 2, 2]], ['free', [1, 1, 0]], ['pro', [1, 1, 1]]]);
      const body = await funnel({ breakdowns: [{ property: '$browser', type: 'event' }, { property: 'plan', type: 'person' }] });
      expect(lines(body)).toContainEqual([['Chrome', 'pro'], [1, 1, 1]]);
      expect(body.result).toHaveLength(5);
      const bob = body.result.find((steps: Array<{ breakdown_value: string[] }>) => steps[0].breakdown_value[1] === 'free');
      expect(emails(await get(bob[1].converted_people_url))).toEqual(['bob@example.com']);
    });

    it('breaks down by group property and by cohort', async () => {
      expect(lines(await funnel({ breakdown: 'name', breakdown_type: 'group', breakdown_group_type_index: 0 }))).toEqual([
        [NULL, [3, 2, 1]], ['Acme', [1, 1, 1]], ['Beta', [1, 1, 1]],
      ]);
      const cohort = await t.http.post(`${base}/cohorts/`, { name: 'Pro', filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }] } } });
      expect(cohort.status).toBe(201);
      const body = await funnel({ breakdown: [cohort.body.id, 'all'], breakdown_type: 'cohort' });
      expect(lines(body)).toEqual([[cohort.body.id, [1, 1, 1]], ['all', [5, 4, 3]]]);
      expect(body.result[0][0].breakdown).toBe('Pro');
      expect(emails(await get(body.result[0][2].converted_people_url))).toEqual(['alice@example.com']);
    });
  });

  describe('groups, trends and time to convert', () => {
    it('aggregates by group: every member\'s events form the group\'s journey', async () => {
      const body = await funnel({ aggregation_group_type_index: 0 });
      // acme: alice's page view and sign-up, then dave's purchase three days later; beta: frank.
      expect(counts(body)).toEqual([2, 2, 2]);
      const groups = await get(body.result[2].converted_people_url);
      expect(groups.results[0].people.map((g: { group_key: string }) => g.group_key).sort()).toEqual(['acme', 'beta']);
    });

    it('shows the conversion rate per entrance day (funnel trends) and its persons', async () => {
      const body = await funnel({ funnel_viz_type: 'trends', date_to: '2026-01-07' });
      expect(body.result).toHaveLength(1);
      expect(body.result[0]).toMatchObject({ count: 7, data: [100, 0, 0, 100, 0, 100, 0] });
      expect(body.result[0].days).toEqual(['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05', '2026-01-06', '2026-01-07']);
      expect(body.result[0].labels[0]).toBe('1-Jan-2026');
      const toSignUp = await funnel({ funnel_viz_type: 'trends', date_to: '2026-01-07', funnel_to_step: 1 });
      expect(toSignUp.result[0].data).toEqual([100, 100, 0, 100, 0, 100, 0]);
      const trendPersons = (params: Record<string, unknown>) => persons({ funnel_viz_type: 'trends', date_to: '2026-01-07', ...params });
      expect(emails(await trendPersons({ entrance_period_start: '2026-01-02', drop_off: true }))).toEqual(['bob@example.com']);
      expect(emails(await trendPersons({ entrance_period_start: '2026-01-02', drop_off: false }))).toEqual([]);
      expect(emails(await trendPersons({ entrance_period_start: '2026-01-06' }))).toEqual(['frank@example.com']);
    });

    it('bins the time to convert', async () => {
      // From the first to the last step: frank 1500 s, alice 3900 s, dave 4800 s; three bins of 1100 s by default.
      expect((await funnel({ funnel_viz_type: 'time_to_convert' })).result).toEqual({ bins: [[1500, 1], [2600, 0], [3700, 1], [4800, 1]], average_conversion_time: 3400 });
      expect((await funnel({ funnel_viz_type: 'time_to_convert', bin_count: 2 })).result.bins).toEqual([[1500, 1], [3150, 1], [4800, 1]]);
      const fromSignUp = await funnel({ funnel_viz_type: 'time_to_convert', funnel_from_step: 1 });
      expect(fromSignUp.result).toEqual({ bins: [[600, 1], [1600, 0], [2600, 0], [3600, 2]], average_conversion_time: 2600 });
    });
  });

  describe('query API', () => {
    const funnelsQuery = (funnelsFilter: Record<string, unknown> = {}) => ({
      kind: 'FunnelsQuery',
      series: STEPS.map((s) => ({ kind: 'EventsNode', event: s.id })),
      dateRange: { date_from: '2026-01-01', date_to: '2026-01-31' },
      funnelsFilter,
    });

    it('gives the same steps as the legacy route', async () => {
      const res = await t.http.post(`${base}/query/`, { query: funnelsQuery({ funnelOrderType: 'unordered' }) });
      expect(res.status).toBe(200);
      expect(res.body.results.map((s: { count: number }) => s.count)).toEqual([6, 4, 4]);
      expect(res.body.results[2]).toMatchObject({ average_conversion_time: 2400, median_conversion_time: 2700 });
      expect(res.body.results[0].converted_people_url).toBeUndefined();
    });

    it('applies exclusions given as EventsNodes', async () => {
      const exclusions = [{ kind: 'EventsNode', event: 'logout', funnelFromStep: 0, funnelToStep: 1 }];
      const res = await t.http.post(`${base}/query/`, { query: funnelsQuery({ exclusions }) });
      expect(res.body.results.map((s: { count: number }) => s.count)).toEqual([4, 3, 3]);
    });

    it('answers time to convert and breakdowns as the legacy route does', async () => {
      const ttc = await t.http.post(`${base}/query/`, { query: funnelsQuery({ funnelVizType: 'time_to_convert', binCount: 2 }) });
      expect(ttc.body.results).toEqual({ bins: [[1500, 1], [3150, 1], [4800, 1]], average_conversion_time: 3400 });
      const broken = await t.http.post(`${base}/query/`, { query: { ...funnelsQuery({ breakdownAttributionType: 'last_touch' }), breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } } });
      expect(broken.body.results.map((steps: Array<{ count: number }>) => steps.map((s) => s.count))).toEqual([[2, 1, 1], [2, 2, 2], [1, 1, 0]]);
    });

    it('lists the actors of a step through FunnelsActorsQuery', async () => {
      const res = await t.http.post(`${base}/query/`, { query: { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnelsQuery(), funnelStep: -3 } } });
      expect(res.status).toBe(200);
      expect(res.body.columns).toEqual(['actor']);
      expect(res.body.results.map((row: Array<{ properties: { email: string } }>) => row[0].properties.email)).toEqual(['bob@example.com']);
    });
  });

  describe('bad input', () => {
    const invalid = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });
    const cases: Array<[string, Record<string, unknown>, ReturnType<typeof invalid>]> = [
      ['one step', { events: [{ id: '$pageview' }] }, invalid('A funnel needs at least two steps in events (got 1): e.g. events=[{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}].', 'events')],
      ['an unknown order type', { funnel_order_type: 'sideways' }, invalid('funnel_order_type "sideways" is not supported: use one of ordered, strict, unordered.', 'funnel_order_type')],
      ['an unknown window unit', { funnel_window_interval_unit: 'fortnight' }, invalid('funnel_window_interval_unit "fortnight" is not supported: use one of second, minute, hour, day, week, month.', 'funnel_window_interval_unit')],
      ['a zero window', { funnel_window_interval: 0 }, invalid('funnel_window_interval must be an integer from 1 to 3650 (got "0").', 'funnel_window_interval')],
      ['an unknown viz type', { funnel_viz_type: 'pie' }, invalid('funnel_viz_type "pie" is not supported: use one of steps, time_to_convert, trends.', 'funnel_viz_type')],
      ['an exclusion outside the funnel', { exclusions: [{ id: 'logout', funnel_from_step: 1, funnel_to_step: 3 }] }, invalid('Exclusion steps must lie inside the funnel: 0 ≤ funnel_from_step < funnel_to_step ≤ 2 (got 1 and 3).', 'exclusions')],
      ['an exclusion of its own step', { exclusions: [{ id: 'signed_up', funnel_from_step: 0, funnel_to_step: 1 }] }, invalid('Exclusion "signed_up" would exclude a step of its own range: exclude another event, or narrow it with properties.', 'exclusions')],
      ['a partial exclusion in an unordered funnel', { funnel_order_type: 'unordered', exclusions: [{ id: 'logout', funnel_from_step: 0, funnel_to_step: 1 }] }, invalid('Partial exclusions are not allowed in unordered funnels: use funnel_from_step 0 and funnel_to_step 2.', 'exclusions')],
      ['malformed exclusions', { exclusions: '[{' }, invalid('exclusions is not valid JSON: send a URL-encoded JSON value, e.g. exclusions=[{"id":"$pageview"}].', 'exclusions')],
      ['a breakdown of time to convert', { breakdown: '$browser', funnel_viz_type: 'time_to_convert' }, invalid('Time to convert is one histogram for the whole funnel: remove breakdown, or use funnel_viz_type=steps or trends.', 'breakdown')],
      ['step attribution without its step', { breakdown: '$browser', breakdown_attribution_type: 'step' }, invalid('breakdown_attribution_type=step needs breakdown_attribution_value: the 0-based step whose value counts.', 'breakdown_attribution_value')],
      ['an unknown attribution', { breakdown: '$browser', breakdown_attribution_type: 'middle_touch' }, invalid('breakdown_attribution_type "middle_touch" is not supported: use one of first_touch, last_touch, all_events, step.', 'breakdown_attribution_type')],
      ['funnel_to_step before funnel_from_step', { funnel_from_step: 1, funnel_to_step: 1 }, invalid('funnel_to_step (1) must come after funnel_from_step (1).', 'funnel_to_step')],
      ['a bin count past 90', { funnel_viz_type: 'time_to_convert', bin_count: 91 }, invalid('bin_count must be an integer from 1 to 90 (got "91").', 'bin_count')],
      ['an action step that does not exist', { actions: [{ id: 1 }] }, invalid('Action 1 does not exist in this project (or was deleted): the id of an action from /api/projects/:id/actions/.', 'actions')],
    ];
    it.each(cases)('refuses %s with a 400 naming the parameter', async (_, params, expected) => {
      const res = await t.http.get(`${base}/insights/funnel/?${filter(params)}`);
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it.each([
      ['-1', invalid('Nobody drops off before the first step: to request drop-off of the first step use funnel_step=-2.', 'funnel_step')],
      ['0', invalid('funnel_step counts from 1 (reached at least that step) or from -2 (dropped off right before that step).', 'funnel_step')],
      ['4', invalid('funnel_step must be an integer from -3 to 3 (got "4").', 'funnel_step')],
    ])('refuses funnel_step=%s', async (step, expected) => {
      const res = await t.http.get(`${base}/persons/funnel/?${filter({ funnel_step: step })}`);
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it('refuses funnel_custom_steps outside the funnel', async () => {
      const res = await t.http.get(`${base}/persons/funnel/?${filter({ funnel_custom_steps: [0, 4] })}`);
      expect([res.status, res.body]).toEqual([400, invalid('funnel_custom_steps must be a JSON list of step numbers from 1 to 3, e.g. [1, 3].', 'funnel_custom_steps')]);
    });
  });
});
