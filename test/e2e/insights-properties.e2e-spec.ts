import fc from 'fast-check';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Properties that hold for any event set, checked on generated ones written straight into a fresh
 * database (ingestion has its own suites): breakdown lines of `total` sum to the unbroken total, a `dau`
 * point lists exactly as many persons as its value, and lifecycle new + returning + resurrecting equals
 * the period's distinct active persons; a retention cohort's period 0 is its size, recurring retention of
 * the same event never rises above it, and the cohort's persons number exactly that size.
 */
describe('Insight properties', () => {
  let t: TestApp;
  let base: string;
  const DAYS = ['2026-02-01', '2026-02-02', '2026-02-03', '2026-02-04'];
  const range = { date_from: DAYS[0], date_to: DAYS[DAYS.length - 1], refresh: 'true' };
  const q = (params: Record<string, unknown>) =>
    new URLSearchParams(Object.entries({ ...range, ...params }).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string])).toString();
  const get = async (path: string) => {
    const res = await t.http.get(path.replace(/^https?:\/\/[^/]+/, '').replace(/^(?!\/)/, '/'));
    expect(res.status).toBe(200);
    return res.body;
  };

  /** One generated event: who (person index, distinct id index), when (day, hour) and a browser. */
  const event = fc.record({ person: fc.nat(5), alias: fc.nat(1), day: fc.nat(DAYS.length - 1), hour: fc.nat(23), browser: fc.constantFrom('Chrome', 'Safari', null) });

  async function load(events: Array<{ person: number; alias: number; day: number; hour: number; browser: string | null }>) {
    await t.sql('DELETE FROM event; DELETE FROM person_distinct_id; DELETE FROM person');
    const persons = new Map<number, number>();
    for (const e of events) {
      if (persons.has(e.person)) continue;
      const created = events.filter((x) => x.person === e.person).map((x) => `${DAYS[x.day]}T${String(x.hour).padStart(2, '0')}:00:00Z`).sort()[0];
      const [row] = await t.sql<{ id: string }>(`INSERT INTO person (project_id, uuid, created_at) VALUES ($1, gen_random_uuid(), $2) RETURNING id`, [t.keys.projectId, created]);
      persons.set(e.person, Number(row.id));
      // Two distinct ids per person: a merged person's events must count once.
      await t.sql(`INSERT INTO person_distinct_id (project_id, distinct_id, person_id) VALUES ($1, $2, $3), ($1, $4, $3)`, [t.keys.projectId, `p${e.person}-0`, row.id, `p${e.person}-1`]);
    }
    for (const e of events) {
      const properties = e.browser === null ? {} : { $browser: e.browser };
      await t.sql(`INSERT INTO event (project_id, uuid, event, distinct_id, properties, timestamp) VALUES ($1, gen_random_uuid(), '$pageview', $2, $3, $4)`, [
        t.keys.projectId, `p${e.person}-${e.alias}`, JSON.stringify(properties), `${DAYS[e.day]}T${String(e.hour).padStart(2, '0')}:00:00Z`,
      ]);
    }
  }

  beforeAll(async () => {
    t = await startTestApp();
    base = `/api/projects/${t.keys.projectId}`;
  });
  afterAll(() => t.close());

  it('keeps totals, persons and lifecycle consistent for any events', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 25 }), async (events) => {
        await load(events);
        const total = (await get(`${base}/insights/trend/?${q({ events: [{ id: '$pageview' }] })}`)).result[0].data as number[];
        const broken = (await get(`${base}/insights/trend/?${q({ events: [{ id: '$pageview' }], breakdown: '$browser' })}`)).result as Array<{ data: number[] }>;
        expect(DAYS.map((_, i) => broken.reduce((sum, line) => sum + line.data[i], 0))).toEqual(total);

        const dau = (await get(`${base}/insights/trend/?${q({ events: [{ id: '$pageview', math: 'dau' }] })}`)).result[0];
        for (const [i, url] of (dau.persons_urls as Array<{ url: string }>).entries()) {
          expect((await get(url.url)).results[0].people).toHaveLength(dau.data[i]);
        }

        const lifecycle = (await get(`${base}/insights/trend/?${q({ events: [{ id: '$pageview' }], shown_as: 'Lifecycle' })}`)).result as Array<{ data: number[] }>;
        const active = DAYS.map((_, i) => lifecycle[0].data[i] + lifecycle[1].data[i] + lifecycle[2].data[i]);
        expect(active).toEqual(dau.data);
      }),
      { numRuns: 15 },
    );
    // Each ClickHouse query costs tens of milliseconds however small the data, where PostgreSQL took a few.
  }, 120_000);

  it('keeps retention cohorts within their size for any events', async () => {
    const retention = (params: Record<string, unknown>) =>
      get(`${base}/insights/retention/?${new URLSearchParams({ date_to: DAYS[DAYS.length - 1], period: 'Day', total_intervals: String(DAYS.length), refresh: 'true', ...params })}`);
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 25 }), async (events) => {
        await load(events);
        for (const type of ['retention_recurring', 'retention_first_time']) {
          const rows = (await retention({ retention_type: type })).result as Array<{ values: Array<{ count: number }>; people_url: string }>;
          for (const row of rows) {
            const [size, ...later] = row.values.map((v) => v.count);
            for (const count of later) expect(count).toBeLessThanOrEqual(size);
            expect((await get(row.people_url)).result).toHaveLength(size);
          }
        }
      }),
      { numRuns: 15 },
    );
    // Each ClickHouse query costs tens of milliseconds however small the data, where PostgreSQL took a few.
  }, 120_000);
});
