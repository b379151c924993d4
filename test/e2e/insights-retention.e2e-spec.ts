import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl } from '../support/insights';

/**
 * Retention over page views ingested through /batch/ (UTC project, March 2026 unless a test moves it;
 * date_to 5 March, period Day, 5 intervals: cohorts 1–5 March), computed by hand:
 *
 *   r1 (pro)   pv 1st 10:00, 2nd 10:00, 4th 10:00; signed_up 1st 10:05
 *   r2 (free)  pv 1st 12:00, 3rd 09:00
 *   r3 (pro)   pv 2nd, 3rd, 4th, 5th at 08:00; signed_up 2nd 08:05
 *   r4         pv 25 Feb 10:00 (before the table), 3rd 10:00
 *   r5 (free)  pv 1st 09:00 as r5-anon; identified 2nd 09:00; pv 2nd 10:00 as r5 (one person, two ids)
 *   r6         pv 1st 20:00 and 2nd 16:00 UTC (2nd 05:00 and 3rd 01:00 in Tokyo)
 */
describe('Insights: retention', () => {
  let t: TestApp;
  let base: string;
  const filter = (params: Record<string, unknown> = {}) => q({ date_to: '2026-03-05', period: 'Day', total_intervals: 5, ...params });
  const retention = async (params: Record<string, unknown> = {}) => {
    const res = await t.http.get(`${base}/insights/retention/?${filter(params)}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const grid = (body: { result: Array<{ values: Array<{ count: number }> }> }) => body.result.map((row) => row.values.map((v) => v.count));
  const get = (path: string) => followUrl(t, path);
  /** Persons reply as {email: appearances}. */
  const appearances = (body: { result: Array<{ person: { properties: { email: string } }; appearances: number[] }> }) =>
    Object.fromEntries(body.result.map((row) => [row.person.properties.email, row.appearances]));

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    const pv = (distinct_id: string, at: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id, timestamp: `2026-${at}Z`, properties });
    const who = (name: string, plan?: string) => ({ $set: { email: `${name}@example.com`, ...(plan ? { plan } : {}) } });
    await ingestBatch(t, t.keys.projectApiKey, [
      pv('r1', '03-01T10:00:00', who('r1', 'pro')), pv('r1', '03-02T10:00:00'), pv('r1', '03-04T10:00:00'),
      { event: 'signed_up', distinct_id: 'r1', timestamp: '2026-03-01T10:05:00Z', properties: {} },
      pv('r2', '03-01T12:00:00', who('r2', 'free')), pv('r2', '03-03T09:00:00'),
      pv('r3', '03-02T08:00:00', who('r3', 'pro')), pv('r3', '03-03T08:00:00'), pv('r3', '03-04T08:00:00'), pv('r3', '03-05T08:00:00'),
      { event: 'signed_up', distinct_id: 'r3', timestamp: '2026-03-02T08:05:00Z', properties: {} },
      pv('r4', '02-25T10:00:00', who('r4')), pv('r4', '03-03T10:00:00'),
      pv('r5-anon', '03-01T09:00:00'),
      pv('r6', '03-01T20:00:00', who('r6')), pv('r6', '03-02T16:00:00'),
    ]);
    await ingestBatch(t, t.keys.projectApiKey, [
      { event: '$identify', distinct_id: 'r5', timestamp: '2026-03-02T09:00:00Z', properties: { $anon_distinct_id: 'r5-anon', ...who('r5', 'free') } },
      pv('r5', '03-02T10:00:00'),
    ]);
  });
  afterAll(() => t.close());

  it('builds the recurring cohort table with labels, dates and the envelope', async () => {
    const body = await retention();
    expect(Object.keys(body).sort()).toEqual(['is_cached', 'last_refresh', 'result', 'timezone']);
    expect(grid(body)).toEqual([[4, 3, 1, 1, 0], [4, 1, 2, 1], [3, 1, 1], [2, 1], [1]]);
    expect(body.result.map((row: { label: string }) => row.label)).toEqual(['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4']);
    expect(body.result[0].date).toBe('2026-03-01T00:00:00Z');
    expect(body.result[0].values[0]).toMatchObject({ count: 4, people: [] });
  });

  it('counts each actor in the cohort of their first event ever (first time)', async () => {
    // r4's first page view was in February, before the table: in no cohort.
    expect(grid(await retention({ retention_type: 'retention_first_time' }))).toEqual([[4, 3, 1, 1, 0], [1, 1, 1, 1], [0, 0, 0], [0, 0], [0]]);
  });

  it('takes cohorts from the target event and returns from the returning event', async () => {
    const body = await retention({ target_entity: { id: 'signed_up', type: 'events' }, returning_entity: { id: '$pageview', type: 'events' } });
    expect(grid(body)).toEqual([[1, 1, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0], [0, 0], [0]]);
  });

  it('filters its entities by cohort', async () => {
    const pro = { type: 'AND', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }] };
    const cohort = await t.http.post(`${base}/cohorts/`, { name: 'Pro', filters: { properties: pro } });
    expect(cohort.status).toBe(201);
    const target = { id: '$pageview', type: 'events', properties: [{ key: 'id', type: 'cohort', value: cohort.body.id }] };
    // Only r1 and r3 are pro.
    expect(grid(await retention({ target_entity: target }))).toEqual([[1, 1, 0, 1, 0], [2, 1, 2, 1], [1, 1, 1], [2, 1], [1]]);
  });

  it('buckets by hour, week and month', async () => {
    expect(grid(await retention({ period: 'Hour', total_intervals: 3, date_to: '2026-03-01T12:00:00Z' }))).toEqual([[1, 0, 0], [0, 0], [1]]);
    // Weeks start on Sunday: 22 February and 1 March.
    const weeks = await retention({ period: 'Week', total_intervals: 2 });
    expect(grid(weeks)).toEqual([[1, 1], [6]]);
    expect(weeks.result[0].date).toBe('2026-02-22T00:00:00Z');
    expect(grid(await retention({ period: 'Month', total_intervals: 2 }))).toEqual([[1, 1], [6]]);
  });

  it('reads days in the project timezone', async () => {
    await t.http.patch(`${base}/`, { timezone: 'Asia/Tokyo' });
    try {
      const body = await retention({ refresh: true });
      expect(grid(body)).toEqual([[3, 2, 1, 1, 0], [4, 2, 2, 1], [4, 1, 1], [2, 1], [1]]);
      expect(body.result[0].date).toBe('2026-03-01T00:00:00+09:00');
    } finally {
      await t.http.patch(`${base}/`, { timezone: 'UTC' });
    }
  });

  it('breaks down by a person property, one line per value', async () => {
    const body = await retention({ breakdown: 'plan', breakdown_type: 'person' });
    expect(body.result.map((row: { label: string; values: Array<{ count: number }> }) => [row.label, row.values.map((v) => v.count)])).toEqual([
      ['$$_posthog_breakdown_null_$$', [2, 1, 0, 0, 0]], ['free', [2, 1, 1, 0, 0]], ['pro', [2, 2, 2, 2, 0]],
    ]);
    expect(appearances(await get(body.result[2].people_url))).toEqual({ 'r1@example.com': [1, 1, 1, 1, 0], 'r3@example.com': [1, 1, 1, 1, 0] });
  });

  it('lists a cohort\'s persons with their appearances, through the row\'s URL', async () => {
    const body = await retention();
    const persons = await get(body.result[0].people_url);
    expect(Object.keys(persons).sort()).toEqual(['missing_persons', 'next', 'result']);
    expect(appearances(persons)).toEqual({
      'r1@example.com': [1, 1, 0, 1, 0], 'r2@example.com': [1, 0, 1, 0, 0], 'r5@example.com': [1, 1, 0, 0, 0], 'r6@example.com': [1, 1, 0, 0, 0],
    });
    const r5 = persons.result.find((row: { person: { distinct_ids: string[] } }) => row.person.distinct_ids.includes('r5'));
    expect(r5.person.distinct_ids.sort()).toEqual(['r5', 'r5-anon']);
    // Most appearances first: the first page of one is r1.
    const first = await get(`${base}/persons/retention/?${filter({ selected_interval: 0, limit: 1 })}`);
    expect(Object.keys(appearances(first))).toEqual(['r1@example.com']);
    expect(first.next).toContain('offset=1');
    // Ties (r2, r5, r6: two appearances each) in person order, across pages.
    const second = await get(`${base}/persons/retention/?${filter({ selected_interval: 0, limit: 2, offset: 1 })}`);
    expect(Object.keys(appearances(second))).toEqual(['r2@example.com', 'r5@example.com']);
  });

  it('answers RetentionQuery and its actors like the legacy routes', async () => {
    const node = { kind: 'RetentionQuery', dateRange: { date_to: '2026-03-05' }, retentionFilter: { period: 'Day', totalIntervals: 5, targetEntity: { id: '$pageview', type: 'events' } } };
    const res = await t.http.post(`${base}/query/`, { query: node });
    expect(res.status).toBe(200);
    // The legacy table's cells, every row padded with 0 to the table's periods, as PostHog's RetentionQuery answers.
    expect(res.body.results.map((row: { values: Array<{ count: number }> }) => row.values.map((v) => v.count))).toEqual([[4, 3, 1, 1, 0], [4, 1, 2, 1, 0], [3, 1, 1, 0, 0], [2, 1, 0, 0, 0], [1, 0, 0, 0, 0]]);
    expect(res.body.results[0].values[1]).toEqual({ count: 3, label: 'Day 1' });
    const actors = await t.http.post(`${base}/query/`, { query: { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: node, interval: 1 } } });
    expect(actors.status).toBe(200);
    expect(actors.body.columns).toEqual(['actor', 'appearances']);
    const byEmail = Object.fromEntries(actors.body.results.map((row: [{ properties: { email: string } }, number[]]) => [row[0].properties.email, row[1]]));
    expect(byEmail).toEqual({ 'r1@example.com': [1, 0, 1, 0], 'r3@example.com': [1, 1, 1, 1], 'r5@example.com': [1, 0, 0, 0], 'r6@example.com': [1, 0, 0, 0] });
    const options = await t.http.post(`${base}/query/`, { query: { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: node } } });
    expect([options.status, options.body.attr]).toEqual([400, 'source']);
  });

  it('answers a RetentionQuery with a breakdown as PostHog does: every cohort of each line, with its breakdown_value', async () => {
    const node = {
      kind: 'RetentionQuery', dateRange: { date_to: '2026-03-05' }, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
      retentionFilter: { period: 'Day', totalIntervals: 5, targetEntity: { id: '$pageview', type: 'events' } },
    };
    const res = await t.http.post(`${base}/query/`, { query: node });
    expect(res.status).toBe(200);
    // Lines as the legacy table ranks them (two persons each, then byte order): none, free, pro; five cohorts each.
    expect(res.body.results.map((row: { breakdown_value: string }) => row.breakdown_value)).toEqual(
      ['$$_posthog_breakdown_null_$$', 'free', 'pro'].flatMap((value) => Array(5).fill(value)),
    );
    // pro: r1 (1st, 2nd, 4th) and r3 (2nd to 5th).
    expect(res.body.results.slice(10).map((row: { values: Array<{ count: number }> }) => row.values.map((v) => v.count))).toEqual([
      [1, 1, 0, 1, 0], [2, 1, 2, 1, 0], [1, 1, 1, 0, 0], [2, 1, 0, 0, 0], [1, 0, 0, 0, 0],
    ]);
    expect(res.body.results[11]).toMatchObject({ label: 'Day 1', date: '2026-03-02T00:00:00Z', values: [{ count: 2, label: 'Day 0' }, { count: 1, label: 'Day 1' }, {}, {}, {}] });
  });

  describe("PostHog's monthly cohorts (test_month_interval)", () => {
    // person1 and person2 view a page on the 10th of these months of 2020.
    const visits: Array<[string, number]> = [
      ['person1', 1], ['person2', 1], ['person1', 2], ['person2', 2], ['person1', 3], ['person2', 3], ['person1', 5],
      ['person1', 6], ['person2', 6], ['person2', 7], ['person1', 9], ['person2', 11],
    ];
    const expected = [[2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1], [2, 2, 0, 1, 2, 1, 0, 1, 0, 1], [2, 0, 1, 2, 1, 0, 1, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 1, 0, 0], [2, 1, 0, 1, 0, 1], [1, 0, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0], [0, 0], [1]];
    const month = (m: number, day: number) => `2020-${String(m).padStart(2, '0')}-${day}T00:00:00Z`;
    beforeAll(async () => {
      await ingestBatch(t, t.keys.projectApiKey, visits.map(([distinct_id, m]) => ({ event: '$pageview', distinct_id, timestamp: month(m, 10).replace('00:00:00', '05:00:00'), properties: {} })));
    });

    it("anchors the legacy route's cohorts on date_to's day of the month", async () => {
      const body = await retention({ period: 'Month', total_intervals: 11, date_to: '2020-11-10T00:00:00Z' });
      expect(grid(body)).toEqual(expected);
      expect(body.result.map((row: { date: string }) => row.date)).toEqual(Array.from({ length: 11 }, (_, i) => month(i + 1, 10)));
    });

    it('starts RetentionQuery cohorts on the first of the month, as current PostHog does', async () => {
      const res = await t.http.post(`${base}/query/`, { query: { kind: 'RetentionQuery', dateRange: { date_to: '2020-11-25' }, retentionFilter: { period: 'Month', totalIntervals: 11 } } });
      expect(res.status).toBe(200);
      expect(res.body.results.map((row: { values: Array<{ count: number }> }) => row.values.map((v) => v.count))).toEqual(expected.map((row) => [...row, ...Array(11 - row.length).fill(0)]));
      expect(res.body.results.map((row: { date: string }) => row.date)).toEqual(Array.from({ length: 11 }, (_, i) => month(i + 1, 1).replace('-1T', '-01T')));
    });
  });

  describe('bad input', () => {
    const invalid = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });
    it.each([
      ['an unknown period', { period: 'Fortnight' }, invalid('period "Fortnight" is not supported: use one of hour, day, week, month.', 'period')],
      ['an unknown retention type', { retention_type: 'retention_sometimes' }, invalid('retention_type "retention_sometimes" is not supported: use one of retention_recurring, retention_first_time.', 'retention_type')],
      ['too many intervals', { total_intervals: 101 }, invalid('total_intervals must be an integer from 1 to 100 (got "101").', 'total_intervals')],
      ['no intervals', { total_intervals: 0 }, invalid('total_intervals must be an integer from 1 to 100 (got "0").', 'total_intervals')],
      ['a malformed target', { target_entity: '{"id":' }, invalid('target_entity is not valid JSON: send a URL-encoded JSON value, e.g. target_entity=[{"id":"$pageview"}].', 'target_entity')],
      ['an action that does not exist', { target_entity: { id: 3, type: 'actions' } }, invalid('Action 3 does not exist in this project (or was deleted): the id of an action from /api/projects/:id/actions/.', 'target_entity')],
      ['an unparseable date_to', { date_to: 'someday' }, invalid('date_to "someday" is not a date: use a date (2024-01-31), a date and time (2024-01-31T12:00:00Z) or a relative date (-7d, -24h, mStart, all).', 'date_to')],
      ['a cohort breakdown', { breakdown: [1], breakdown_type: 'cohort' }, invalid('Retention breaks down by event, person or group properties: use breakdown_type event, person or group.', 'breakdown_type')],
    ])('refuses %s', async (_, params, expected) => {
      const res = await t.http.get(`${base}/insights/retention/?${filter(params)}`);
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it('refuses a cohort past the table', async () => {
      const res = await t.http.get(`${base}/persons/retention/?${filter({ selected_interval: 5 })}`);
      expect([res.status, res.body]).toEqual([400, invalid('selected_interval must be an integer from 0 to 4 (got "5").', 'selected_interval')]);
    });
  });
});
