import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl } from '../support/insights';

/**
 * Funnel correlation over hand-made journeys (UTC, February 2026; funnel view → buy, 14-day window):
 *
 *   p1 (pro)   view 1st 10:00, help 10:05 {topic billing}, buy 10:30    → converted
 *   p2 (pro)   view 2nd 10:00, help 10:05 {topic billing}, buy 11:00    → converted
 *   p3 (free)  view 3rd 10:00, help 10:05 {topic billing}, buy 12:00    → converted
 *   p4 (free)  view 4th 10:00, error 10:01 {code 500}                    → dropped off
 *   p5 (free)  view 5th 10:00, error 10:01 {code 500}, help 10:02 {topic login} → dropped off
 *   p6 (free)  view 6th 10:00, error 10:01 {code 404}; help on the 25th (outside the window) → dropped off
 *
 * Three successes and three failures; odds ratios with a prior of 1:
 *   help: 3 of 3 successes, 1 of 3 failures → (4 × 3) / (1 × 2) = 6
 *   error: 0 successes, 3 failures          → (1 × 1) / (4 × 4) = 0.0625
 *   help::topic::billing: 3 and 0           → (4 × 4) / (1 × 1) = 16 (the only event property value of more than two persons)
 *   plan::pro: 2 and 0 → (3 × 4) / (2 × 1) = 6;  plan::free: 1 and 3 → (2 × 1) / (3 × 4) = 1/6
 */
describe('Insights: funnel correlation', () => {
  let t: TestApp;
  let base: string;
  const STEPS = [{ id: 'view', order: 0 }, { id: 'buy', order: 1 }];
  const filter = (params: Record<string, unknown> = {}) => q({ events: STEPS, date_from: '2026-02-01', date_to: '2026-02-28', ...params });
  const correlation = async (params: Record<string, unknown> = {}) => {
    const res = await t.http.get(`${base}/insights/funnel/correlation/?${filter(params)}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const get = (path: string) => followUrl(t, path);
  type Row = { event: { event: string }; success_count: number; failure_count: number; odds_ratio: number; correlation_type: string; success_people_url: string; failure_people_url: string };
  const rows = (body: { result: { events: Row[] } }) => body.result.events.map((r) => [r.event.event, r.success_count, r.failure_count, r.odds_ratio, r.correlation_type]);
  const emails = (body: { results: Array<{ people: Array<{ properties: { email: string } }> }> }) => body.results[0].people.map((p) => p.properties.email).sort();

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    const at = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp: `2026-02-${timestamp}Z`, properties });
    const view = (id: string, day: string, plan: string) => at('view', id, `${day}T10:00:00`, { $set: { email: `${id}@example.com`, plan } });
    await ingestBatch(t, t.keys.projectApiKey, [
      view('p1', '01', 'pro'), at('help', 'p1', '01T10:05:00', { topic: 'billing' }), at('buy', 'p1', '01T10:30:00'),
      view('p2', '02', 'pro'), at('help', 'p2', '02T10:05:00', { topic: 'billing' }), at('buy', 'p2', '02T11:00:00'),
      view('p3', '03', 'free'), at('help', 'p3', '03T10:05:00', { topic: 'billing' }), at('buy', 'p3', '03T12:00:00'),
      view('p4', '04', 'free'), at('error', 'p4', '04T10:01:00', { code: 500 }),
      view('p5', '05', 'free'), at('error', 'p5', '05T10:01:00', { code: 500 }), at('help', 'p5', '05T10:02:00', { topic: 'login' }),
      view('p6', '06', 'free'), at('error', 'p6', '06T10:01:00', { code: 404 }), at('help', 'p6', '25T10:00:00', { topic: 'billing' }),
    ]);
  });
  afterAll(() => t.close());

  it('ranks events by how they go with converting, successes first', async () => {
    const body = await correlation();
    expect(Object.keys(body).sort()).toEqual(['is_cached', 'last_refresh', 'result']);
    expect(body.result.skewed).toBe(false);
    expect(rows(body)).toEqual([['help', 3, 1, 6, 'success'], ['error', 0, 3, 0.0625, 'failure']]);
    expect(body.result.events[0].event).toEqual({ event: 'help', properties: {}, elements: [] });
  });

  it('leaves out excluded events', async () => {
    expect(rows(await correlation({ funnel_correlation_exclude_event_names: ['help'] }))).toEqual([['error', 0, 3, 0.0625, 'failure']]);
  });

  it('correlates event property values seen by more than two persons', async () => {
    // Ingestion adds $ip to every event: left out here, as a user would.
    const body = await correlation({ funnel_correlation_type: 'event_with_properties', funnel_correlation_event_names: ['help', 'error'], funnel_correlation_event_exclude_property_names: ['$ip'] });
    expect(rows(body)).toEqual([['help::topic::billing', 3, 0, 16, 'success']]);
    expect(emails(await get(body.result.events[0].success_people_url))).toEqual(['p1@example.com', 'p2@example.com', 'p3@example.com']);
  });

  it('correlates person property values', async () => {
    const expected = [['plan::pro', 2, 0, 6, 'success'], ['plan::free', 1, 3, 1 / 6, 'failure']];
    expect(rows(await correlation({ funnel_correlation_type: 'properties', funnel_correlation_names: ['plan'] }))).toEqual(expected);
    expect(rows(await correlation({ funnel_correlation_type: 'properties', funnel_correlation_names: ['$all'], funnel_correlation_exclude_names: ['email'] }))).toEqual(expected);
  });

  it('lists the persons behind a row, converted or not, through its URLs', async () => {
    const body = await correlation();
    const help = body.result.events[0];
    expect(emails(await get(help.success_people_url))).toEqual(['p1@example.com', 'p2@example.com', 'p3@example.com']);
    // p6's help came after the window ended.
    expect(emails(await get(help.failure_people_url))).toEqual(['p5@example.com']);
    expect(help.success_people_url).toMatch(new RegExp(`^api/projects/${t.keys.projectId}/persons/funnel/correlation/\\?`));
  });

  it('pages a row\'s persons with funnel_correlation_person_limit, also through persons/funnel/', async () => {
    const values = JSON.stringify([{ key: 'plan', value: 'free', type: 'person', operator: 'exact' }]);
    const first = await get(`${base}/persons/funnel/?${filter({ funnel_correlation_property_values: values, funnel_correlation_person_converted: 'false', funnel_correlation_person_limit: 2 })}`);
    expect(first.results[0].people).toHaveLength(2);
    expect(first.next).toContain('funnel_correlation_person_offset=2');
    const second = await get(first.next);
    expect(second.results[0].people).toHaveLength(1);
    expect(second.next).toBeNull();
    expect([...emails(first), ...emails(second)].sort()).toEqual(['p4@example.com', 'p5@example.com', 'p6@example.com']);
  });

  it('answers FunnelCorrelationQuery and FunnelCorrelationActorsQuery like the legacy routes', async () => {
    const funnel = { kind: 'FunnelsQuery', series: STEPS.map((s) => ({ kind: 'EventsNode', event: s.id })), dateRange: { date_from: '2026-02-01', date_to: '2026-02-28' } };
    const node = { kind: 'FunnelCorrelationQuery', source: { kind: 'FunnelsActorsQuery', source: funnel }, funnelCorrelationType: 'events' };
    const res = await t.http.post(`${base}/query/`, { query: node });
    expect(res.status).toBe(200);
    expect(res.body.results.events.map((r: Row) => [r.event.event, r.odds_ratio])).toEqual([['help', 6], ['error', 0.0625]]);
    expect(res.body.results.events[0].success_people_url).toBeNull();
    const actors = await t.http.post(`${base}/query/`, {
      query: { kind: 'ActorsQuery', source: { kind: 'FunnelCorrelationActorsQuery', source: node, funnelCorrelationPersonEntity: { kind: 'EventsNode', event: 'error' }, funnelCorrelationPersonConverted: false } },
    });
    expect(actors.status).toBe(200);
    expect(actors.body.results.map((row: Array<{ properties: { email: string } }>) => row[0].properties.email).sort()).toEqual(['p4@example.com', 'p5@example.com', 'p6@example.com']);
  });

  describe('bad input', () => {
    const invalid = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });
    it.each([
      ['an unknown type', { funnel_correlation_type: 'vibes' }, invalid('funnel_correlation_type "vibes" is not supported: use one of events, properties, event_with_properties.', 'funnel_correlation_type')],
      ['event properties without events', { funnel_correlation_type: 'event_with_properties' }, invalid('Event property correlation needs funnel_correlation_event_names: the events whose properties to correlate.', 'funnel_correlation_event_names')],
      ['properties without names', { funnel_correlation_type: 'properties' }, invalid('Property correlation needs funnel_correlation_names: the property names to correlate, or ["$all"].', 'funnel_correlation_names')],
      ['names that are not a list', { funnel_correlation_exclude_event_names: '"help"' }, invalid('funnel_correlation_exclude_event_names must be a JSON list of names, e.g. ["$pageview"].', 'funnel_correlation_exclude_event_names')],
      ['a one-step funnel', { events: [{ id: 'view' }] }, invalid('A funnel needs at least two steps in events (got 1): e.g. events=[{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}].', 'events')],
    ])('refuses %s', async (_, params, expected) => {
      const res = await t.http.get(`${base}/insights/funnel/correlation/?${filter(params)}`);
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it('refuses persons of no row and of a malformed entity', async () => {
      const none = await t.http.get(`${base}/persons/funnel/correlation/?${filter()}`);
      expect([none.status, none.body]).toEqual([400, invalid('Name the correlation row: funnel_correlation_person_entity (an event) or funnel_correlation_property_values (property filters).', 'funnel_correlation_person_entity')]);
      const bad = await t.http.get(`${base}/persons/funnel/correlation/?${filter({ funnel_correlation_person_entity: { type: 'actions', id: 3 } })}`);
      expect([bad.status, bad.body]).toEqual([400, invalid('funnel_correlation_person_entity must be an event entity, e.g. {"id": "$pageview", "type": "events"}.', 'funnel_correlation_person_entity')]);
    });
  });
});
