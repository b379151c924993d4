import fc from 'fast-check';
import { withDeadline } from '../../src/common/async/with-deadline';
import { startClickHouseHttpFront } from '../support/clickhouse-http-front';
import { HttpClient } from '../support/http-client';
import { startExtraApi, startTestApp, TestApp } from '../support/test-app';

/**
 * Both deployments of the engine give the same answers: the same requests go to an API on the embedded
 * engine (chdb) and to one on a ClickHouse server (CLICKHOUSE_URL, through @clickhouse/client over real
 * HTTP; here a ClickHouse HTTP front over the same engine, each API with its own database and its own copy),
 * for trends, stickiness, lifecycle, funnels, correlation, paths and their persons, over generated events in
 * several zones, after new events, a merge, changed and new persons, and a delete, and the replies must be
 * identical. What only a real server exercises (its own settings, a cluster) is listed in docs/configuration.md.
 */
/** Far past any reply here (tens of milliseconds alone, a few seconds on a busy machine). */
const REPLY_DEADLINE_MS = 60_000;

describe('Insights on both engine deployments', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof startExtraApi>>;
  let front: Awaited<ReturnType<typeof startClickHouseHttpFront>>;
  let base: string;
  const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10'];
  const PERSONS = 6;

  beforeAll(async () => {
    t = await startTestApp();
    front = await startClickHouseHttpFront();
    server = await startExtraApi(t, { CLICKHOUSE_URL: front.url, CLICKHOUSE_DATABASE: `${new URL(t.databaseUrl).pathname.slice(1)}_server` });
    base = `/api/projects/${t.keys.projectId}`;
  });
  afterAll(async () => {
    await server.close();
    await front.close();
    await t.close();
  });

  const event = fc.record({
    name: fc.constantFrom('$pageview', '$pageview', 'signup', 'buy'),
    person: fc.nat(PERSONS),
    alias: fc.nat(1),
    day: fc.nat(DAYS.length - 1),
    hour: fc.nat(23),
    micros: fc.nat(59_999_999),
    page: fc.constantFrom('/', '/a', '/a/', '/b', null),
  });
  type Generated = { name: string; person: number; alias: number; day: number; hour: number; micros: number; page: string | null };
  /** Person PERSONS has no person row: its events have no actor. */
  const distinctId = (e: Generated) => (e.person === PERSONS ? 'ghost' : `d${e.person}-${e.alias}`);
  const at = (e: Generated) => `${DAYS[e.day]}T${String(e.hour).padStart(2, '0')}:${String(Math.floor(e.micros / 1e6)).padStart(2, '0')}:00.${String(e.micros % 1e6).padStart(6, '0')}Z`;

  async function reset(zone: string, plans: Array<string | null>): Promise<number[]> {
    await t.sql('DELETE FROM event; DELETE FROM person_distinct_id; DELETE FROM person');
    await t.sql('UPDATE project SET timezone = $2 WHERE id = $1', [t.keys.projectId, zone]);
    const ids: number[] = [];
    for (let person = 0; person < PERSONS; person++) {
      const properties = plans[person % plans.length] === null ? {} : { plan: plans[person % plans.length] };
      const [row] = await t.sql<{ id: string }>(`INSERT INTO person (project_id, uuid, properties, created_at) VALUES ($1, gen_random_uuid(), $2, $3) RETURNING id`, [
        t.keys.projectId, JSON.stringify(properties), `${DAYS[person % DAYS.length]}T05:00:00Z`,
      ]);
      ids.push(Number(row.id));
      await t.sql(`INSERT INTO person_distinct_id (project_id, distinct_id, person_id) VALUES ($1, $2, $4), ($1, $3, $4)`, [t.keys.projectId, `d${person}-0`, `d${person}-1`, row.id]);
    }
    return ids;
  }

  async function insert(events: Generated[]): Promise<void> {
    for (const e of events) {
      const properties = e.page === null ? {} : { $current_url: `https://example.com${e.page}` };
      await t.sql(`INSERT INTO event (project_id, uuid, event, distinct_id, properties, timestamp) VALUES ($1, gen_random_uuid(), $2, $3, $4, $5)`, [
        t.keys.projectId, e.name, distinctId(e), JSON.stringify(properties), at(e),
      ]);
    }
  }

  const json = (value: unknown) => encodeURIComponent(JSON.stringify(value));
  const range = `date_from=${DAYS[0]}&date_to=${DAYS[DAYS.length - 1]}&refresh=true`;
  const STEPS = [{ id: '$pageview', order: 0 }, { id: 'signup', order: 1 }, { id: 'buy', order: 2 }];
  const REQUESTS = [
    `insights/trend/?events=${json([{ id: '$pageview' }, { id: 'signup', order: 1 }])}&${range}`,
    `insights/trend/?events=${json([{ id: '$pageview', math: 'dau' }])}&interval=hour&date_from=${DAYS[2]}&date_to=${DAYS[3]}&refresh=true`,
    `insights/trend/?events=${json([{ id: 'buy' }, { id: '$pageview', math: 'dau', order: 1 }])}&interval=week&compare=true&${range}`,
    `insights/trend/?events=${json([{ id: '$pageview', math: 'dau' }])}&interval=month&display=ActionsTable&${range}`,
    `insights/trend/?events=${json([{ id: '$pageview' }, { id: 'buy', order: 1 }])}&breakdown=plan&breakdown_type=person&breakdown_limit=2&${range}`,
    `insights/trend/?events=${json([{ id: '$pageview', math: 'dau' }])}&breakdown=plan&breakdown_type=person&${range}`,
    `insights/trend/?events=${json([{ id: '$pageview' }])}&formula=A*2&display=ActionsLineGraphCumulative&${range}`,
    `insights/trend/?insight=STICKINESS&shown_as=Stickiness&events=${json([{ id: '$pageview' }])}&${range}`,
    `insights/trend/?shown_as=Lifecycle&events=${json([{ id: '$pageview' }])}&${range}`,
    `insights/trend/?shown_as=Lifecycle&events=${json([{ id: '$pageview' }])}&interval=week&${range}`,
    `insights/funnel/?events=${json(STEPS)}&${range}`,
    `insights/funnel/?events=${json(STEPS)}&funnel_order_type=strict&${range}`,
    `insights/funnel/?events=${json(STEPS)}&funnel_order_type=unordered&funnel_window_interval=2&funnel_window_interval_unit=day&${range}`,
    `insights/funnel/?events=${json(STEPS)}&breakdown=plan&breakdown_type=person&${range}`,
    `insights/funnel/?events=${json(STEPS.slice(0, 2))}&funnel_viz_type=trends&${range}`,
    `insights/funnel/?events=${json(STEPS.slice(0, 2))}&funnel_viz_type=time_to_convert&${range}`,
    `insights/funnel/?events=${json([STEPS[0], STEPS[2]])}&exclusions=${json([{ id: 'signup', funnel_from_step: 0, funnel_to_step: 1 }])}&${range}`,
    `insights/funnel/correlation/?events=${json([STEPS[0], STEPS[2]])}&funnel_correlation_type=events&${range}`,
    `insights/retention/?period=Day&total_intervals=10&date_to=${DAYS[DAYS.length - 1]}&refresh=true`,
    `insights/retention/?period=Day&total_intervals=8&retention_type=retention_first_time&target_entity=${json({ id: 'signup', type: 'events' })}&returning_entity=${json({ id: '$pageview', type: 'events' })}&date_to=${DAYS[DAYS.length - 2]}&refresh=true`,
    `insights/retention/?period=Week&total_intervals=3&date_to=${DAYS[DAYS.length - 1]}&refresh=true`,
    `insights/retention/?period=Hour&total_intervals=24&date_to=${DAYS[3]}T23:00:00&refresh=true`,
    `insights/path/?path_type=%24pageview&${range}`,
    `insights/path/?include_event_types=${json(['$pageview', 'custom_event'])}&step_limit=3&${range}`,
  ];

  /** A reply without what differs between two computations of the same answer (times, the host in URLs). */
  function normalized(body: unknown, client: HttpClient): unknown {
    const text = JSON.stringify(body).split(client.baseUrl).join('');
    return JSON.parse(text, (key, value) => (/refresh|cached|timings/.test(key) ? undefined : value));
  }

  /** Every persons URL of a reply (trend points, funnel steps, correlation rows), at most `most` spread over them, as paths. */
  function personsUrls(body: unknown, most = 6): string[] {
    const urls: string[] = [];
    JSON.stringify(body, (key, value) => {
      if (typeof value === 'string' && /url$/.test(key) && value.includes('api/projects/')) urls.push(value);
      return value;
    });
    const step = Math.max(1, Math.ceil(urls.length / most));
    return urls.filter((_, i) => i % step === 0).map((url) => url.replace(/^https?:\/\/[^/]+/, '').replace(/^(?!\/)/, '/'));
  }

  async function same(path: string): Promise<unknown> {
    // A reply that never comes fails here, naming the request and the side, instead of at the test's time limit.
    const [mine, reference] = await Promise.all([
      withDeadline(t.http.get(path), REPLY_DEADLINE_MS, `the embedded engine's reply to ${path}`),
      withDeadline(server.http.get(path), REPLY_DEADLINE_MS, `the server's reply to ${path}`),
    ]);
    expect({ path, status: mine.status }).toEqual({ path, status: 200 });
    expect(normalized(mine.body, t.http)).toEqual(normalized(reference.body, server.http));
    return reference.body;
  }

  async function everyAnswerAgrees(): Promise<void> {
    for (const request of REQUESTS) {
      const body = await same(`${base}/${request}`);
      for (const url of personsUrls(body)) await same(url);
      if (request.startsWith('insights/path/')) {
        const edges = (body as { result: Array<{ target: string }> }).result;
        for (const edge of edges.slice(0, 3)) await same(`${base}/persons/path/?${request.split('?')[1]}&path_end_key=${encodeURIComponent(edge.target)}`);
      }
    }
  }

  it('gives the same insights and persons on both deployments, before and after new events, a merge, person changes and a delete', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata'),
        fc.array(fc.constantFrom('free', 'pro', null), { minLength: 1, maxLength: 3 }),
        fc.array(event, { minLength: 1, maxLength: 30 }),
        fc.array(event, { minLength: 1, maxLength: 15 }),
        async (zone, plans, first, later) => {
          const ids = await reset(zone, plans);
          await insert(first);
          await everyAnswerAgrees();
          // New events and a merge (d1-1 moves to person 0) reach the copy through its incremental refresh.
          await insert(later);
          await t.sql(`UPDATE person_distinct_id SET person_id = $2 WHERE project_id = $1 AND distinct_id = 'd1-1'`, [t.keys.projectId, ids[0]]);
          // A person's properties and creation change, and a new person arrives with events, after the copy read persons.
          await t.sql(`UPDATE person SET properties = '{"plan": "team"}', created_at = $2 WHERE id = $1`, [ids[3], `${DAYS[1]}T00:00:00Z`]);
          const [late] = await t.sql<{ id: string }>(`INSERT INTO person (project_id, uuid, properties, created_at) VALUES ($1, gen_random_uuid(), '{"plan": "late"}', $2) RETURNING id`, [t.keys.projectId, `${DAYS[4]}T00:00:00Z`]);
          await t.sql(`INSERT INTO person_distinct_id (project_id, distinct_id, person_id) VALUES ($1, 'late-0', $2)`, [t.keys.projectId, late.id]);
          await t.sql(`INSERT INTO event (project_id, uuid, event, distinct_id, properties, timestamp) VALUES ($1, gen_random_uuid(), '$pageview', 'late-0', '{}', $2), ($1, gen_random_uuid(), 'signup', 'late-0', '{}', $3)`, [
            t.keys.projectId, `${DAYS[4]}T10:00:00Z`, `${DAYS[4]}T11:00:00Z`,
          ]);
          await everyAnswerAgrees();
          // A deleted person takes their distinct ids along: both copies follow the delete.
          await t.sql('DELETE FROM person WHERE id = $1', [ids[2]]);
          await everyAnswerAgrees();
        },
      ),
      // Each run makes about 700 requests to each API; every CI run draws new cases. Two runs take about a minute
      // alone, and beside the rest of the suite on two busy cores up to several times that. A failing case is then
      // shrunk, each step a full run: stopped before the test's own timeout, fast-check reports the failure and the
      // smallest case found so far (and fails a run that had not finished), where jest's timeout would only say "timeout".
      { numRuns: 2, interruptAfterTimeLimit: 540_000, markInterruptAsFailure: true },
    );
  }, 600_000);
});
