import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl, runQuery } from '../support/insights';

/**
 * The maths over actors' event counts and first events, with every number computed by hand from the
 * $pageviews below (UTC project, range Jan 1–4 2026):
 *
 *   ann  Dec 20 (Chrome); Jan 1 10:00, 11:00, 12:00 (Chrome, amount 10, 20, 30, company acme); Jan 2 10:00 (Firefox)
 *   ben  Jan 1 09:00 (Firefox, amount 40, company acme); Jan 3 09:00, 10:00 (Chrome)
 *   cal  Jan 2 08:00, 09:00, 10:00, 11:00 (Safari)
 *   dan  Jan 2 12:00 (Firefox)
 *
 * Events per actor and day: Jan 1 ann 3, ben 1; Jan 2 ann 1, cal 4, dan 1; Jan 3 ben 2; Jan 4 none.
 * Percentiles interpolate between the sorted counts (as PostgreSQL's percentile_cont): Jan 1's p75 of [1, 3] is 2.5.
 */
describe('Insights: maths per actor and first events, formulas, minutes', () => {
  let t: TestApp;
  let base: string;
  const pv = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id, timestamp, properties });
  const trend = async (params: Record<string, unknown>) => {
    const res = await t.http.get(`${base}/insights/trend/?${q({ date_from: '2026-01-01', date_to: '2026-01-04', ...params })}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const query = (body: Record<string, unknown>) => runQuery(t, base, body);
  const names = (body: { results: Array<{ people: Array<{ distinct_ids: string[] }> }> }) => body.results[0].people.map((p) => p.distinct_ids[0]);
  const rounded = (values: number[]) => values.map((v) => Number(v.toFixed(6)));

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    const acme = { $groups: { company: 'acme' } };
    await ingestBatch(t, t.keys.projectApiKey, [
      pv('ann', '2025-12-20T10:00:00Z', { $browser: 'Chrome' }),
      pv('ann', '2026-01-01T10:00:00Z', { $browser: 'Chrome', amount: 10, ...acme }),
      pv('ann', '2026-01-01T11:00:00Z', { $browser: 'Chrome', amount: 20, ...acme }),
      pv('ann', '2026-01-01T12:00:00Z', { $browser: 'Chrome', amount: 30, ...acme }),
      pv('ann', '2026-01-02T10:00:00Z', { $browser: 'Firefox' }),
      pv('ben', '2026-01-01T09:00:00Z', { $browser: 'Firefox', amount: 40, ...acme }),
      pv('ben', '2026-01-03T09:00:00Z', { $browser: 'Chrome' }),
      pv('ben', '2026-01-03T10:00:00Z', { $browser: 'Chrome' }),
      ...['08', '09', '10', '11'].map((hour) => pv('cal', `2026-01-02T${hour}:00:00Z`, { $browser: 'Safari' })),
      pv('dan', '2026-01-02T12:00:00Z', { $browser: 'Firefox' }),
      ...['10:00:05', '10:00:55', '10:01:30', '10:03:00'].map((time) => ({ event: 'tick', distinct_id: 'ann', timestamp: `2026-01-02T${time}Z`, properties: {} })),
      // PostHog's weekly lifecycle case (test_lifecycle_trend_weeks), on an event of its own.
      ...['2020-02-01', '2020-02-05', '2020-02-10', '2020-02-15', '2020-02-27', '2020-03-02'].map((day) => ({ event: 'visit', distinct_id: 'p1', timestamp: `${day}T12:00:00Z`, properties: {} })),
      ...[['p2', '2020-02-11'], ['p2', '2020-02-18'], ['p3', '2020-02-12'], ['p4', '2020-02-27']].map(([who, day]) => ({ event: 'visit', distinct_id: who, timestamp: `${day}T12:00:00Z`, properties: {} })),
      { event: '$groupidentify', distinct_id: 'ann', timestamp: '2026-01-01T09:00:00Z', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } } },
    ]);
  });
  afterAll(() => t.close());

  describe('counts per actor', () => {
    it.each([
      ['avg_count_per_actor', [2, 2, 2, 0]],
      ['min_count_per_actor', [1, 1, 2, 0]],
      ['max_count_per_actor', [3, 4, 2, 0]],
      ['median_count_per_actor', [2, 1, 2, 0]],
      ['p75_count_per_actor', [2.5, 2.5, 2, 0]],
      ['p90_count_per_actor', [2.8, 3.4, 2, 0]],
      ['p95_count_per_actor', [2.9, 3.7, 2, 0]],
      ['p99_count_per_actor', [2.98, 3.94, 2, 0]],
    ])('aggregates each person\'s events per day (%s)', async (math, expected) => {
      const body = await trend({ events: [{ id: '$pageview', math }] });
      expect(rounded(body.result[0].data)).toEqual(expected);
      expect(body.result[0].action.math).toBe(math);
    });

    it('lists a point\'s persons by their number of events, most first', async () => {
      const body = await trend({ events: [{ id: '$pageview', math: 'max_count_per_actor' }] });
      const persons = await followUrl(t, body.result[0].persons_urls[1].url);
      expect(persons.results[0].people.map((p: { distinct_ids: string[]; value_at_data_point: number }) => [p.distinct_ids[0], p.value_at_data_point]))
        .toEqual([['cal', 4], expect.any(Array), expect.any(Array)]);
      expect(names(persons).slice(1).sort()).toEqual(['ann', 'dan']);
    });

    it('aggregates over the whole range for one-number displays: counts 4, 3, 4, 1', async () => {
      const avg = await trend({ events: [{ id: '$pageview', math: 'avg_count_per_actor' }], display: 'BoldNumber' });
      expect(avg.result[0].aggregated_value).toBe(3);
      const median = await trend({ events: [{ id: '$pageview', math: 'median_count_per_actor' }], display: 'BoldNumber' });
      expect(median.result[0].aggregated_value).toBe(3.5);
    });

    it('counts per group when a group type is named: acme had 4 events on Jan 1', async () => {
      const body = await trend({ events: [{ id: '$pageview', math: 'avg_count_per_actor', math_group_type_index: 0 }] });
      expect(body.result[0].data).toEqual([4, 0, 0, 0]);
      const groups = await followUrl(t, body.result[0].persons_urls[0].url);
      expect(groups.results[0].people.map((g: { group_key: string; value_at_data_point: number }) => [g.group_key, g.value_at_data_point])).toEqual([['acme', 4]]);
    });

    it('gives the same numbers through the query API', async () => {
      const body = await query({
        kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'p90_count_per_actor' }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-04' },
      });
      expect(rounded(body.results[0].data)).toEqual([2.8, 3.4, 2, 0]);
    });
  });

  describe('p75 of a property', () => {
    it('interpolates between the sorted values: Jan 1 holds 10, 20, 30, 40', async () => {
      const body = await trend({ events: [{ id: '$pageview', math: 'p75', math_property: 'amount' }] });
      expect(body.result[0].data).toEqual([32.5, 0, 0, 0]);
    });
  });

  describe('first time for user', () => {
    it('counts persons on the day of their first $pageview ever, so ann (first seen Dec 20) never counts', async () => {
      const body = await trend({ events: [{ id: '$pageview', math: 'first_time_for_user' }] });
      expect(body.result[0].data).toEqual([1, 2, 0, 0]);
      expect(names(await followUrl(t, body.result[0].persons_urls[1].url)).sort()).toEqual(['cal', 'dan']);
      expect(names(await followUrl(t, body.result[0].persons_urls[0].url))).toEqual(['ben']);
    });

    it('counts nobody when a person\'s first event fails the filters, but the first matching event counts where it falls', async () => {
      const chrome = [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }];
      const first = await trend({ events: [{ id: '$pageview', math: 'first_time_for_user', properties: chrome }] });
      expect(first.result[0].data).toEqual([0, 0, 0, 0]);
      const matching = await trend({ events: [{ id: '$pageview', math: 'first_matching_event_for_user', properties: chrome }] });
      // ann's first Chrome event was Dec 20; ben's came on Jan 3.
      expect(matching.result[0].data).toEqual([0, 0, 1, 0]);
      expect(names(await followUrl(t, matching.result[0].persons_urls[2].url))).toEqual(['ben']);
    });

    it('breaks down by the property of each person\'s first event', async () => {
      const body = await trend({ events: [{ id: '$pageview', math: 'first_time_for_user' }], breakdown: '$browser' });
      expect(body.result.map((s: { breakdown_value: string; data: number[] }) => [s.breakdown_value, s.data])).toEqual([
        ['Chrome', [0, 0, 0, 0]],
        ['Safari', [0, 1, 0, 0]],
        ['Firefox', [1, 1, 0, 0]],
      ]);
      expect(names(await followUrl(t, body.result[2].persons_urls[1].url))).toEqual(['dan']);
    });

    it('counts each person once over the whole range, and the same through the query API', async () => {
      const total = await trend({ events: [{ id: '$pageview', math: 'first_time_for_user' }], display: 'ActionsTable' });
      expect(total.result[0].aggregated_value).toBe(3);
      const body = await query({
        kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'first_time_for_user' }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-04' },
      });
      expect(body.results[0].data).toEqual([1, 2, 0, 0]);
    });
  });

  describe('formulas', () => {
    // A: $pageviews [4, 6, 2, 0]; B: persons with one [2, 3, 1, 0].
    const series = [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: '$pageview', math: 'dau' }];
    const dateRange = { date_from: '2026-01-01', date_to: '2026-01-04' };

    it('draws one line per formulaNodes entry, named by its custom_name or as Formula (…)', async () => {
      const body = await query({
        kind: 'TrendsQuery', series, dateRange, trendsFilter: { formulaNodes: [{ formula: 'A/B', custom_name: 'Per person' }, { formula: 'A-B' }] },
      });
      expect(body.results.map((s: { label: string; data: number[] }) => [s.label, s.data])).toEqual([['Per person', [2, 2, 2, 0]], ['Formula (A-B)', [2, 3, 1, 0]]]);
    });

    it('reads formulas as texts and a single legacy formula the same way', async () => {
      const texts = await query({ kind: 'TrendsQuery', series, dateRange, trendsFilter: { formulas: ['A+B'] } });
      expect(texts.results.map((s: { label: string; data: number[] }) => [s.label, s.data])).toEqual([['Formula (A+B)', [6, 9, 3, 0]]]);
      const legacy = await trend({ events: [{ id: '$pageview' }, { id: '$pageview', math: 'dau', order: 1 }], formula: 'A+B' });
      expect(legacy.result.map((s: { label: string; data: number[] }) => [s.label, s.data])).toEqual([['Formula (A+B)', [6, 9, 3, 0]]]);
    });

    it('refuses a formula node that is no formula, naming it', async () => {
      const res = await t.http.post(`${base}/query/`, { query: { kind: 'TrendsQuery', series, dateRange, trendsFilter: { formulaNodes: [{ formula: 'A+C' }] } } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ attr: 'formula', detail: expect.stringMatching(/^formula "A\+C" /) });
      const bad = await t.http.post(`${base}/query/`, { query: { kind: 'TrendsQuery', series, dateRange, trendsFilter: { formulaNodes: [{ formula: 7 }] } } });
      expect([bad.status, bad.body.attr]).toEqual([400, 'formula']);
    });
  });

  describe('minute interval', () => {
    // ann's ticks: 10:00:05, 10:00:55, 10:01:30 and 10:03:00 on Jan 2.
    const minutes = { events: [{ id: 'tick' }], interval: 'minute', date_from: '2026-01-02T10:00:00Z', date_to: '2026-01-02T10:02:00Z' };

    it('buckets by minute, labels with the time, and lists a minute\'s persons', async () => {
      const body = await trend(minutes);
      expect(body.result[0].data).toEqual([2, 1, 0]);
      expect(body.result[0].days).toEqual(['2026-01-02 10:00:00', '2026-01-02 10:01:00', '2026-01-02 10:02:00']);
      expect(body.result[0].labels).toEqual(['2-Jan-2026 10:00', '2-Jan-2026 10:01', '2-Jan-2026 10:02']);
      expect(names(await followUrl(t, body.result[0].persons_urls[1].url))).toEqual(['ann']);
    });

    it('gives the same through the query API, and refuses minutes outside trends', async () => {
      const body = await query({
        kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'tick' }], interval: 'minute', dateRange: { date_from: minutes.date_from, date_to: minutes.date_to },
      });
      expect(body.results[0].data).toEqual([2, 1, 0]);
      const res = await t.http.get(`${base}/insights/trend/?${q({ ...minutes, shown_as: 'Stickiness' })}`);
      expect([res.status, res.body.detail]).toEqual([400, 'interval "minute" is supported by trends only: use hour, day, week or month for stickiness.']);
    });
  });

  describe('weeks', () => {
    // Weeks from Sunday: Dec 28 (holding Jan 1–3), Jan 4, Jan 11.
    const weekly = (math: string) => trend({ events: [{ id: '$pageview', math }], interval: 'week', date_from: '2026-01-01', date_to: '2026-01-14' });

    it('counts monthly actives at each week over the 30 days up to its first day, before date_from too', async () => {
      const body = await weekly('monthly_active');
      // Dec 28: ann's Dec 20 $pageview; Jan 4 and Jan 11: ann, ben, cal and dan, all active since Dec 6.
      expect(body.result[0].data).toEqual([1, 4, 4]);
      expect(names(await followUrl(t, body.result[0].persons_urls[1].url)).sort()).toEqual(['ann', 'ben', 'cal', 'dan']);
    });

    it('counts weekly actives at week intervals as the week\'s own actors, as PostHog turns them into dau', async () => {
      expect((await weekly('weekly_active')).result[0].data).toEqual([4, 0, 0]);
    });

    it('starts lifecycle weeks on Monday, as PostHog\'s lifecycle does', async () => {
      const body = await trend({ events: [{ id: 'visit' }], shown_as: 'Lifecycle', interval: 'week', date_from: '2020-02-05T00:00:00Z', date_to: '2020-03-09T00:00:00Z' });
      expect(body.result[0].days).toEqual(['2020-02-03', '2020-02-10', '2020-02-17', '2020-02-24', '2020-03-02', '2020-03-09']);
      const byStatus = Object.fromEntries(body.result.map((s: { status: string; data: number[] }) => [s.status, s.data]));
      expect(byStatus).toEqual({
        new: [0, 2, 0, 1, 0, 0], returning: [1, 1, 1, 0, 1, 0], resurrecting: [0, 0, 0, 1, 0, 0], dormant: [0, 0, -2, -1, -1, -1],
      });
    });
  });

  it('refuses an unknown math, listing the ones it knows', async () => {
    const res = await t.http.get(`${base}/insights/trend/?${q({ events: [{ id: '$pageview', math: 'avg_per_actor' }] })}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ attr: 'math', detail: expect.stringContaining('avg_count_per_actor, min_count_per_actor') });
    expect(res.body.detail).toMatch(/^math "avg_per_actor" is not supported: use one of total, dau, /);
  });
});
