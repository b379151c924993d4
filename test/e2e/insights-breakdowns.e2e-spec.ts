import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl, runQuery } from '../support/insights';

const OTHER = '$$_posthog_breakdown_other_$$';

/**
 * Breakdowns past their limit, computed by hand from these events (UTC project, Jan 1–2 2026; $pageview unless named):
 *
 *   ann  Jan 1 10:00, 11:00 (Chrome), signed_up 12:00
 *   ben  Jan 1 10:00 (Chrome), Jan 2 10:00 (Chrome)
 *   cal  Jan 1 10:00 (Firefox), Jan 2 10:00 (Firefox), signed_up Jan 2 11:00
 *   dan  Jan 2 10:00 (Firefox)
 *   eve  Jan 1 10:00 (Safari), signed_up 10:10 (+600 s)
 *   fay  Jan 2 09:00 (Edge), signed_up 09:30 (+1800 s)
 *   gus  Jan 1 10:00 (no browser)
 *
 * $pageviews by browser: Chrome 4, Firefox 3, then Edge, Safari and none 1 each. With breakdown_limit 2 the Other line
 * holds eve, fay and gus: Jan 1 eve + gus, Jan 2 fay. In the funnel $pageview → signed_up, Chrome (ann, ben) and
 * Firefox (cal, dan) each have 2 entrants; Other has eve, fay and gus, of whom eve and fay converted.
 *
 * The $pageviews' amounts, in the order above, are 10, 20, 30, 40, 50, 60, 70, 80, 90 (gus has none).
 */
describe('Insights: breakdowns past the limit, and in histogram bins', () => {
  let t: TestApp;
  let base: string;
  const at = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
  const pv = (distinct_id: string, timestamp: string, browser?: string, amount?: number) => at('$pageview', distinct_id, timestamp, { ...(browser ? { $browser: browser } : {}), ...(amount === undefined ? {} : { amount }) });
  const get = async (path: string, params: Record<string, unknown>) => {
    const res = await t.http.get(`${base}/insights/${path}/?${q({ date_from: '2026-01-01', date_to: '2026-01-02', ...params })}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const query = (body: Record<string, unknown>) => runQuery(t, base, body);
  const names = (body: { results: Array<{ people: Array<{ distinct_ids: string[] }> }> }) => body.results[0].people.map((p) => p.distinct_ids[0]).sort();
  const lines = (result: Array<{ breakdown_value: unknown; data: number[] }>) => result.map((s) => [s.breakdown_value, s.data]);
  const STEPS = [{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }];

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    await ingestBatch(t, t.keys.projectApiKey, [
      pv('ann', '2026-01-01T10:00:00Z', 'Chrome', 10), pv('ann', '2026-01-01T11:00:00Z', 'Chrome', 20), at('signed_up', 'ann', '2026-01-01T12:00:00Z'),
      pv('ben', '2026-01-01T10:00:00Z', 'Chrome', 30), pv('ben', '2026-01-02T10:00:00Z', 'Chrome', 40),
      pv('cal', '2026-01-01T10:00:00Z', 'Firefox', 50), pv('cal', '2026-01-02T10:00:00Z', 'Firefox', 60), at('signed_up', 'cal', '2026-01-02T11:00:00Z'),
      pv('dan', '2026-01-02T10:00:00Z', 'Firefox', 70),
      pv('eve', '2026-01-01T10:00:00Z', 'Safari', 80), at('signed_up', 'eve', '2026-01-01T10:10:00Z'),
      pv('fay', '2026-01-02T09:00:00Z', 'Edge', 90), at('signed_up', 'fay', '2026-01-02T09:30:00Z'),
      pv('gus', '2026-01-01T10:00:00Z'),
    ]);
  });
  afterAll(() => t.close());

  describe('trends', () => {
    it('sums the values past the limit into an Other line, so the lines add up to the total', async () => {
      const body = await get('trend', { events: [{ id: '$pageview' }], breakdown: '$browser', breakdown_limit: 2 });
      expect(lines(body.result)).toEqual([['Chrome', [3, 1]], ['Firefox', [1, 2]], [OTHER, [2, 1]]]);
      expect(body.result[2].label).toBe(`$pageview - ${OTHER}`);
      const total = await get('trend', { events: [{ id: '$pageview' }] });
      expect(total.result[0].data).toEqual([6, 4]);
    });

    it('counts distinct persons over the Other values and lists them', async () => {
      const body = await get('trend', { events: [{ id: '$pageview', math: 'dau' }], breakdown: '$browser', breakdown_limit: 2 });
      expect(body.result[2].data).toEqual([2, 1]);
      expect(names(await followUrl(t, body.result[2].persons_urls[0].url))).toEqual(['eve', 'gus']);
      expect(names(await followUrl(t, body.result[2].persons_urls[1].url))).toEqual(['fay']);
    });

    it('ranks the values on the current period and shows the previous period with the same values', async () => {
      // Jan 2: Firefox 2, then Chrome and Edge 1 each (a tie, in byte order); Jan 1 under those: Firefox 1, Chrome 3, Other 2.
      const body = await get('trend', { events: [{ id: '$pageview' }], breakdown: '$browser', breakdown_limit: 2, compare: true, date_from: '2026-01-02', date_to: '2026-01-02' });
      expect(body.result.map((s: { compare_label: string; breakdown_value: string; data: number[] }) => [s.compare_label, s.breakdown_value, s.data])).toEqual([
        ['current', 'Firefox', [2]], ['current', 'Chrome', [1]], ['current', OTHER, [1]],
        ['previous', 'Firefox', [1]], ['previous', 'Chrome', [3]], ['previous', OTHER, [2]],
      ]);
    });

    it('ranks the values by their events, not by the math, when summing a property', async () => {
      // Chrome has 4 events summing to 100, Firefox 3 summing to 180; Other: Safari's 80 (Jan 1), Edge's 90 (Jan 2), gus's none.
      const body = await get('trend', { events: [{ id: '$pageview', math: 'sum', math_property: 'amount' }], breakdown: '$browser', breakdown_limit: 2 });
      expect(lines(body.result)).toEqual([['Chrome', [60, 40]], ['Firefox', [50, 130]], [OTHER, [80, 90]]]);
    });

    it('has no Other line when every value is shown, or when breakdown_hide_other_aggregation is set', async () => {
      const all = await get('trend', { events: [{ id: '$pageview' }], breakdown: '$browser', breakdown_limit: 5 });
      expect(all.result.map((s: { breakdown_value: string }) => s.breakdown_value)).toEqual(['Chrome', 'Firefox', '$$_posthog_breakdown_null_$$', 'Edge', 'Safari']);
      const hidden = await get('trend', { events: [{ id: '$pageview' }], breakdown: '$browser', breakdown_limit: 2, breakdown_hide_other_aggregation: true });
      expect(lines(hidden.result)).toEqual([['Chrome', [3, 1]], ['Firefox', [1, 2]]]);
    });

    it('gives one number for the Other values on aggregate displays, and the same lines through the query API', async () => {
      const table = await get('trend', { events: [{ id: '$pageview' }], breakdown: '$browser', breakdown_limit: 2, display: 'ActionsTable' });
      expect(table.result.map((s: { breakdown_value: string; aggregated_value: number }) => [s.breakdown_value, s.aggregated_value])).toEqual([['Chrome', 4], ['Firefox', 3], [OTHER, 3]]);
      const body = await query({
        kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-02' },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 2 },
      });
      expect(lines(body.results)).toEqual([['Chrome', [3, 1]], ['Firefox', [1, 2]], [OTHER, [2, 1]]]);
    });
  });

  describe('histogram bins', () => {
    const bins = (count: number) => get('trend', { events: [{ id: '$pageview' }], breakdown: 'amount', breakdown_histogram_bin_count: count });

    it('cuts a numeric property at its quantiles: 2 bins at 10, 50 and 90, the last one reaching past the largest value', async () => {
      const body = await bins(2);
      // Jan 1: 10, 20, 30, 50, 80; Jan 2: 40, 60, 70, 90. gus's $pageview has no amount and is in no bin.
      expect(lines(body.result)).toEqual([['[10.0,50.0]', [3, 1]], ['[50.0,90.01]', [2, 3]]]);
      expect(body.result[0].label).toBe('$pageview - [10.0,50.0]');
      expect(names(await followUrl(t, body.result[1].persons_urls[1].url))).toEqual(['cal', 'dan', 'fay']);
    });

    it('makes as many bins as asked for, and the same through the query API', async () => {
      expect((await bins(4)).result.map((s: { breakdown_value: string }) => s.breakdown_value)).toEqual(['[10.0,30.0]', '[30.0,50.0]', '[50.0,70.0]', '[70.0,90.01]']);
      const body = await query({
        kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-02' },
        breakdownFilter: { breakdown: 'amount', breakdown_type: 'event', breakdown_histogram_bin_count: 2 },
      });
      expect(lines(body.results)).toEqual([['[10.0,50.0]', [3, 1]], ['[50.0,90.01]', [2, 3]]]);
    });

    it('refuses bins on a funnel, as PostHog offers them in trends only', async () => {
      const res = await t.http.get(`${base}/insights/funnel/?${q({ events: STEPS, breakdown: 'amount', breakdown_histogram_bin_count: 2 })}`);
      expect([res.status, res.body.attr]).toEqual([400, 'breakdown_histogram_bin_count']);
    });
  });

  describe('funnels', () => {
    const funnel = (params: Record<string, unknown>) => get('funnel', { events: STEPS, breakdown: '$browser', breakdown_limit: 2, ...params });
    const steps = (result: Array<Array<{ breakdown_value: unknown; count: number }>>) => result.map((line) => [line[0].breakdown_value, line.map((s) => s.count)]);

    it('tallies the actors of every line past the limit as one Other line, with their conversion times', async () => {
      const body = await funnel({});
      expect(steps(body.result)).toEqual([['Chrome', [2, 1]], ['Firefox', [2, 1]], [OTHER, [3, 2]]]);
      expect(body.result[2][1]).toMatchObject({ breakdown: OTHER, breakdown_value: OTHER, average_conversion_time: 1200, median_conversion_time: 1200 });
      expect(names(await followUrl(t, body.result[2][0].converted_people_url))).toEqual(['eve', 'fay', 'gus']);
      expect(names(await followUrl(t, body.result[2][1].converted_people_url))).toEqual(['eve', 'fay']);
      expect(names(await followUrl(t, body.result[2][1].dropped_people_url))).toEqual(['gus']);
    });

    it('leaves the Other line out when asked, and through the query API', async () => {
      expect(steps((await funnel({ breakdown_hide_other_aggregation: true })).result)).toEqual([['Chrome', [2, 1]], ['Firefox', [2, 1]]]);
      const body = await query({
        kind: 'FunnelsQuery', series: STEPS.map((s) => ({ kind: 'EventsNode', event: s.id })), dateRange: { date_from: '2026-01-01', date_to: '2026-01-02' },
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 2 },
      });
      expect(steps(body.results)).toEqual([['Chrome', [2, 1]], ['Firefox', [2, 1]], [OTHER, [3, 2]]]);
    });

    it('draws an Other line in funnel trends too', async () => {
      const body = await funnel({ funnel_viz_type: 'trends' });
      // Conversion rates by entrance day: Other entered Jan 1 (eve, gus: 1 of 2) and Jan 2 (fay: 1 of 1).
      expect(body.result.map((s: { breakdown_value: string; data: number[] }) => [s.breakdown_value, s.data])).toEqual([
        ['Chrome', [50, 0]], ['Firefox', [100, 50]], [OTHER, [50, 100]],
      ]);
    });
  });
});
