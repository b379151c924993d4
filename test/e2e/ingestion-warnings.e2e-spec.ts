import { sendJson } from '../support/capture-client';
import { waitForQueuesIdle, waitForRows } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const MAX_EVENT_BYTES = 1024 * 1024;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/**
 * Events that are dropped still get 200 (as PostHog's capture answers them), so the ingestion warnings API is how a user finds out: every drop
 * reason with its count and examples, plus the corrections made to kept events.
 */
describe('Ingestion warnings', () => {
  const logs: Array<Record<string, unknown>> = [];
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' }, logs });
    url = `/api/projects/${t.keys.projectId}/ingestion_warnings/`;
    const longId = 'x'.repeat(250);
    const batch = [
      { event: 'kept', distinct_id: 'u1' },
      { distinct_id: 'u1' }, // no name
      { event: '', distinct_id: 'u1' }, // empty name
      { event: 'no_id' }, // no distinct id
      { event: 'no_id_again', distinct_id: null },
      { event: 'empty_id', distinct_id: '' },
      { event: 'too_big', distinct_id: 'u1', properties: { blob: 'y'.repeat(MAX_EVENT_BYTES) } },
      'not an event',
      { event: 'long_id', distinct_id: longId },
    ];
    const res = await sendJson(t, '/batch/', { api_key: t.keys.projectApiKey, batch });
    expect(res.status).toBe(200);
    await waitForRows(t, `SELECT 1 FROM event WHERE event IN ('kept', 'long_id')`, [], 2);
    await waitForQueuesIdle(t);
    // A warning older than the 30-day window, which the summary leaves out.
    await t.sql(`INSERT INTO ingestion_warning (project_id, type, details, timestamp) VALUES ($1, 'missing_event_name', '{}', now() - interval '31 days')`, [t.keys.projectId]);
  });
  afterAll(() => t.close());

  it('summarises every drop reason and correction with its count and examples', async () => {
    const res = await t.http.get(url);
    expect(res.status).toBe(200);
    const byType = Object.fromEntries(res.body.results.map((summary: { type: string }) => [summary.type, summary]));
    expect(Object.keys(byType).sort()).toEqual([
      'distinct_id_truncated',
      'empty_distinct_id',
      'event_too_big',
      'invalid_event',
      'missing_distinct_id',
      'missing_event_name',
    ]);
    // The day of the warnings (UTC), read from them so a run across midnight still holds.
    const day = (byType.missing_event_name.lastSeen as string).slice(0, 10);
    expect(byType.missing_event_name).toEqual({
      type: 'missing_event_name',
      lastSeen: ISO,
      sparkline: [[2, day]],
      warnings: [
        { type: 'missing_event_name', timestamp: ISO, details: { distinct_id: 'u1' } },
        { type: 'missing_event_name', timestamp: ISO, details: { distinct_id: 'u1' } },
      ],
      count: 2,
    });
    expect(byType.missing_distinct_id.count).toBe(2);
    expect(byType.missing_distinct_id.warnings.map((w: { details: unknown }) => w.details)).toEqual(
      expect.arrayContaining([{ event: 'no_id' }, { event: 'no_id_again' }]),
    );
    expect(byType.empty_distinct_id).toMatchObject({ count: 1, warnings: [{ details: { event: 'empty_id' } }] });
    expect(byType.event_too_big).toMatchObject({ count: 1, warnings: [{ details: { max_bytes: MAX_EVENT_BYTES } }] });
    expect(byType.invalid_event).toMatchObject({ count: 1, warnings: [{ details: { reason: 'event is not an object' } }] });
    expect(byType.distinct_id_truncated).toMatchObject({
      count: 1,
      warnings: [{ details: { event: 'long_id', distinct_id: 'x'.repeat(200), length: 250, max_length: 200 } }],
    });
    const lastSeen = res.body.results.map((summary: { lastSeen: string }) => summary.lastSeen);
    expect(lastSeen).toEqual([...lastSeen].sort().reverse());
  });

  it('keeps only warnings whose type or details contain q', async () => {
    const byEvent = await t.http.get(`${url}?q=no_id_again`);
    expect(byEvent.body.results.map((s: { type: string; count: number }) => [s.type, s.count])).toEqual([['missing_distinct_id', 1]]);
    const byType = await t.http.get(`${url}?q=too_big`);
    expect(byType.body.results.map((s: { type: string }) => s.type)).toEqual(['event_too_big']);
    expect((await t.http.get(`${url}?q=nothing-matches`)).body).toEqual({ results: [] });
  });

  it('logs each drop at info with its reason and event name, without the key or the distinct id', () => {
    const drops = logs.filter((line) => line.msg === 'event dropped');
    expect(drops.map((line) => line.reason).sort()).toEqual([
      'empty_distinct_id',
      'event_too_big',
      'invalid_event',
      'missing_distinct_id',
      'missing_distinct_id',
      'missing_event_name',
      'missing_event_name',
    ]);
    for (const line of drops) expect(line).toMatchObject({ level: 'info', path: '/batch', context: 'CaptureService' });
    expect(drops.find((line) => line.reason === 'empty_distinct_id')?.event).toBe('empty_id');
    const text = JSON.stringify(drops);
    expect(text).not.toContain(t.keys.projectApiKey);
    expect(text).not.toContain('u1');
  });

  it('is refused without a personal key, and shows another project nothing', async () => {
    expect((await t.http.get(url, { key: null })).status).toBe(401);
    expect((await t.http.get(url, { key: t.keys.projectApiKey })).status).toBe(401);
    const other = await t.http.post('/api/projects/', { name: 'Other' });
    expect(other.status).toBe(201);
    expect((await t.http.get(`/api/projects/${other.body.id}/ingestion_warnings/`)).body).toEqual({ results: [] });
  });
});
