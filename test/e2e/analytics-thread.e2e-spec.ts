import { Client } from 'pg';
import { filterQuery } from '../support/insights';
import { freePorts, ServiceProcess } from '../support/service-process';
import { createEmptyDatabase, runId, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../support/test-env';

const PROJECT_KEY = 'phc_AnalyticsThreadProjectKey0123456789abcd';
const PERSONAL_KEY = 'phx_AnalyticsThreadPersonalKey0123456789abc';

interface Reply {
  status: number;
  contentType: string | null;
  body: any;
}

/** The built service with insights on their thread, beside one that computes them on its HTTP thread, on one database. */
describe('Analytics thread (ANALYTICS_THREAD)', () => {
  let threaded: ServiceProcess;
  let inline: ServiceProcess;
  let threadedUrl: string;
  let inlineUrl: string;
  let db: Client;

  const call = async (base: string, method: string, path: string, body?: unknown, auth = true): Promise<Reply> => {
    const headers: Record<string, string> = auth ? { authorization: `Bearer ${PERSONAL_KEY}` } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, contentType: response.headers.get('content-type'), body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
  };

  /** A reply without what differs between two processes' computations of one answer: when it was computed, and their address in URLs. */
  const comparable = (value: unknown, base: string): unknown => {
    if (typeof value === 'string') return value.replaceAll(base, 'http://service');
    if (Array.isArray(value)) return value.map((item) => comparable(item, base));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'last_refresh' && key !== 'timings').map(([key, v]) => [key, comparable(v, base)]));
  };

  const scrape = async (base: string): Promise<string> => {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    return response.text();
  };

  const metric = async (base: string, name: string): Promise<number> => {
    const text = await scrape(base);
    return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };

  beforeAll(async () => {
    const url = await createEmptyDatabase('athread');
    const env = { DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: `hbathread${runId()}`, INIT_PROJECT_API_KEY: PROJECT_KEY, INIT_PERSONAL_API_KEY: PERSONAL_KEY, METRICS_TOKEN: TEST_METRICS_TOKEN };
    const [port, otherPort] = await freePorts(2);
    threaded = new ServiceProcess({ ...env, ROLE: 'all', PORT: String(port) });
    threadedUrl = `http://127.0.0.1:${port}`;
    await threaded.waitFor(`${threadedUrl}/_readyz`);
    inline = new ServiceProcess({ ...env, ROLE: 'api', PORT: String(otherPort), ANALYTICS_THREAD: 'off' });
    inlineUrl = `http://127.0.0.1:${otherPort}`;
    await inline.waitFor(`${inlineUrl}/_readyz`);
    db = new Client({ connectionString: url });
    await db.connect();

    const day = (n: number, hour: number) => new Date(Date.UTC(2026, 0, n, hour)).toISOString();
    const batch = [
      ['alice', '$pageview', day(5, 9)], ['alice', 'signed_up', day(5, 10)], ['alice', 'checkout', day(6, 9)],
      ['bob', '$pageview', day(5, 11)], ['bob', 'signed_up', day(7, 9)],
      ['carol', '$pageview', day(6, 12)], ['carol', '$pageview', day(8, 12)],
    ].map(([distinct_id, event, timestamp]) => ({ event, distinct_id, timestamp, properties: { $current_url: `https://example.com/${event}` } }));
    const sent = await fetch(`${threadedUrl}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: PROJECT_KEY, batch }) });
    expect(sent.status).toBe(200);
    for (let tries = 0; (await db.query('SELECT count(*)::int AS n FROM event')).rows[0].n < batch.length; tries++) {
      if (tries > 200) throw new Error('events were not stored');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The first insight starts the thread, and waits for it.
    await call(threadedUrl, 'GET', `/api/projects/1/insights/trend/?${filterQuery({ events: [{ id: '$pageview' }], date_from: '2026-01-01', date_to: '2026-01-10' })}`);
    await threaded.waitForOutput(/analytics thread started/);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    threaded?.kill();
    inline?.kill();
  });

  const steps = [{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }, { id: 'checkout', order: 2 }];
  const range = { date_from: '2026-01-01', date_to: '2026-01-10', refresh: 'true' };
  const get = (what: string, path: string, auth = true) => ({ what, method: 'GET', path, body: undefined as unknown, auth });
  const post = (what: string, path: string, body: unknown) => ({ what, method: 'POST', path, body, auth: true });
  const cases = [
    get('a trend', `/api/projects/1/insights/trend/?${filterQuery({ events: [{ id: '$pageview', math: 'dau' }], ...range })}`),
    get('lifecycle', `/api/projects/1/insights/trend/?${filterQuery({ shown_as: 'Lifecycle', events: [{ id: '$pageview' }], ...range })}`),
    post('a funnel sent as a JSON body', '/api/projects/1/insights/funnel/', { events: steps, ...range }),
    get('the persons of a funnel step', `/api/projects/1/persons/funnel/?${filterQuery({ events: steps, funnel_step: 2, ...range })}`),
    get('the persons of a trend point', `/api/projects/1/persons/trends/?${filterQuery({ events: [{ id: '$pageview' }], entity_id: '$pageview', entity_type: 'events', date_from: '2026-01-05', date_to: '2026-01-05' })}`),
    get('retention', `/api/projects/1/insights/retention/?${filterQuery({ period: 'Day', total_intervals: 4, date_to: '2026-01-08', refresh: 'true' })}`),
    get('paths', `/api/projects/1/insights/path/?${filterQuery({ path_type: '$pageview', ...range })}`),
    post('the query API', '/api/projects/1/query/', { query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-10' } } }),
    get('a malformed filter (400)', '/api/projects/1/insights/trend/?events=%5Bnot-json'),
    post('a funnel of one step (400)', '/api/projects/1/insights/funnel/', { events: [steps[0]] }),
    get('no key (401)', `/api/projects/1/insights/trend/?${filterQuery({ events: [{ id: '$pageview' }] })}`, false),
    get('another project (404)', `/api/projects/999/insights/trend/?${filterQuery({ events: [{ id: '$pageview' }] })}`),
  ];

  it.each(cases)('answers $what exactly as the HTTP thread computes it', async ({ method, path, body, auth }) => {
    const before = await metric(threadedUrl, 'analytics_thread_requests_total');
    const [fromThread, fromHttpThread] = [await call(threadedUrl, method, path, body, auth), await call(inlineUrl, method, path, body, auth)];
    expect([fromThread.status, fromThread.contentType]).toEqual([fromHttpThread.status, fromHttpThread.contentType]);
    // Compared as text: a failing deep comparison of these replies takes jest longer to print than the test may run.
    expect(JSON.stringify(comparable(fromThread.body, threadedUrl))).toBe(JSON.stringify(comparable(fromHttpThread.body, inlineUrl)));
    expect(await metric(threadedUrl, 'analytics_thread_requests_total')).toBe(before + 1);
  });

  it('gives the expected funnel, so the comparison above compares real answers', async () => {
    const reply = await call(threadedUrl, 'POST', '/api/projects/1/insights/funnel/', { events: steps, ...range });
    expect(reply.body.result.map((step: { count: number }) => step.count)).toEqual([3, 2, 1]);
  });

  it("reports the thread's insight reads on the process's /metrics", async () => {
    expect(await metric(threadedUrl, 'analytics_columnar_answers_total')).toBeGreaterThan(0);
    expect(await metric(threadedUrl, 'analytics_columnar_events')).toBe(7);
    // Each metric once (the HTTP thread keeps no copies of its own), and the process's own series all there.
    const text = await scrape(threadedUrl);
    expect(text.match(/^# TYPE analytics_columnar_events /gm)).toHaveLength(1);
    expect(text).toMatch(/^process_start_time_seconds \d+/m);
    // The other process computed on its own HTTP thread and counts no forwarded request.
    expect(await metric(inlineUrl, 'analytics_thread_requests_total')).toBe(0);
  });

  it('leaves every other route to the HTTP thread', async () => {
    const before = await metric(threadedUrl, 'analytics_thread_requests_total');
    const persons = await call(threadedUrl, 'GET', '/api/projects/1/persons/');
    expect(persons.status).toBe(200);
    expect(persons.body.results).toHaveLength(3);
    expect(await metric(threadedUrl, 'analytics_thread_requests_total')).toBe(before);
  });

  it('closes the thread on SIGTERM and exits 0', async () => {
    const { code } = await threaded.terminate();
    expect(code).toBe(0);
    expect(threaded.stdout + threaded.stderr).not.toMatch(/analytics thread (failed|exited|could not start)/);
  });
});
