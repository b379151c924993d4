import { ingestBatch } from '../support/ingestion';
import { startExtraApi, startTestApp, TestApp } from '../support/test-app';
import type { HttpClient } from '../support/http-client';

/** The limit of the API under test: short, so a statement waiting on a held lock is stopped quickly. */
const LIMIT_MS = 300;
/** Far below the main pool's own 30 s client read timeout, which would otherwise be what ends a stuck request. */
const ANSWERED_WITHIN_MS = 5_000;

const timedOut = (advice: string) => ({
  type: 'server_error',
  code: 'query_timeout',
  detail: `The query ran longer than the limit of ${LIMIT_MS} ms (MANAGEMENT_QUERY_TIMEOUT_MS) and was stopped: ${advice}.`,
  attr: null,
});
const SCAN_ADVICE = 'try again when the database is less busy, or raise MANAGEMENT_QUERY_TIMEOUT_MS';

/**
 * Management reads whose cost the caller chooses run on the main pool, which ingestion and flag evaluation share:
 * each statement stops at MANAGEMENT_QUERY_TIMEOUT_MS and the connection goes back to the pool. A lock held on the
 * table makes a statement wait past the limit deterministically (a lock wait counts against statement_timeout).
 */
describe('Management reads under MANAGEMENT_QUERY_TIMEOUT_MS', () => {
  let t: TestApp;
  let limited: Awaited<ReturnType<typeof startExtraApi>>;
  let base: string;
  let eventUuid: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    await ingestBatch(t, t.keys.projectApiKey, [{ event: 'signed_up', distinct_id: 'alice', properties: { plan: 'pro', $set: { email: 'alice@example.com' } } }]);
    eventUuid = (await t.sql<{ uuid: string }>('SELECT uuid::text AS uuid FROM event'))[0].uuid;
    // One connection: a timed-out read that kept its connection would stall every later request of this API.
    limited = await startExtraApi(t, { MANAGEMENT_QUERY_TIMEOUT_MS: String(LIMIT_MS), DATABASE_POOL_SIZE: '1' });
  });
  afterAll(async () => {
    await limited.close();
    await t.close();
  });

  /** Runs `check` while this test's own transaction holds an exclusive lock on `tables`. */
  async function whileLocked(tables: string, check: () => Promise<void>): Promise<void> {
    await t.sql('BEGIN');
    try {
      await t.sql(`LOCK TABLE ${tables} IN ACCESS EXCLUSIVE MODE`);
      await check();
    } finally {
      await t.sql('ROLLBACK');
    }
  }

  /** The status and body of a GET, which must come back well before any client-side timeout could end it. */
  async function get(http: HttpClient, path: string): Promise<[number, unknown]> {
    const started = performance.now();
    const res = await http.get(path);
    expect(performance.now() - started).toBeLessThan(ANSWERED_WITHIN_MS);
    return [res.status, res.body];
  }

  describe('with the default limit', () => {
    it('answers the events list, its CSV, values and retrieve', async () => {
      const list = await t.http.get(`${base}/events/`);
      expect([list.status, list.body.results.map((e: { id: string }) => e.id)]).toEqual([200, [eventUuid]]);
      const csv = await t.http.get(`${base}/events.csv`);
      expect([csv.status, csv.text.split('\r\n').length]).toEqual([200, 3]);
      const values = await t.http.get(`${base}/events/values/?key=plan`);
      expect([values.status, values.body]).toEqual([200, [{ name: 'pro' }]]);
      const one = await t.http.get(`${base}/events/${eventUuid}/`);
      expect([one.status, one.body.id]).toEqual([200, eventUuid]);
    });

    it('answers the persons list, its CSV, search, values and properties', async () => {
      const list = await t.http.get(`${base}/persons/`);
      expect([list.status, list.body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids)]).toEqual([200, [['alice']]]);
      const search = await t.http.get(`${base}/persons/?search=alice`);
      expect([search.status, search.body.results.length]).toEqual([200, 1]);
      const csv = await t.http.get(`${base}/persons.csv`);
      expect([csv.status, csv.text.split('\r\n').length]).toEqual([200, 3]);
      const values = await t.http.get(`${base}/persons/values/?key=email`);
      expect([values.status, values.body]).toEqual([200, [{ name: 'alice@example.com', count: 1 }]]);
      const properties = await t.http.get(`${base}/persons/properties/`);
      expect([properties.status, properties.body]).toEqual([200, [{ name: 'email', count: 1 }]]);
    });

    it('waits out a lock held for longer than the short limit of the other API', async () => {
      await t.sql('BEGIN');
      await t.sql('LOCK TABLE event, person IN ACCESS EXCLUSIVE MODE');
      const replies = Promise.all([t.http.get(`${base}/events/`), t.http.get(`${base}/persons/`)]);
      await new Promise((resolve) => setTimeout(resolve, 3 * LIMIT_MS));
      // Both lists are still waiting for the lock, past the limit the other API stops at.
      // (The analytics copy's refresh reads the same tables, and waits for the lock too: it is not a list.)
      const waiting = await t.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
        AND application_name <> 'hogbase analytics copy'`);
      await t.sql('ROLLBACK');
      const [events, persons] = await replies;
      expect(waiting).toEqual([{ n: 2 }]);
      expect([events.status, events.body.results.length, persons.status, persons.body.results.length]).toEqual([200, 1, 200, 1]);
    });
  });

  describe('past the limit', () => {
    it('stops the events list and its CSV with a 504 that says what to narrow', async () => {
      const advice = 'narrow the filters or the date range (`after`, `before`), or ask for fewer events with `limit`';
      await whileLocked('event', async () => {
        expect(await get(limited.http, `${base}/events/`)).toEqual([
          504,
          {
            type: 'server_error',
            code: 'query_timeout',
            detail: 'The query ran longer than the limit of 300 ms (MANAGEMENT_QUERY_TIMEOUT_MS) and was stopped: narrow the filters or the date range (`after`, `before`), or ask for fewer events with `limit`.',
            attr: null,
          },
        ]);
        expect(await get(limited.http, `${base}/events.csv`)).toEqual([504, timedOut(advice)]);
        expect(await get(limited.http, `${base}/events/?format=csv`)).toEqual([504, timedOut(advice)]);
        expect(await get(limited.http, `${base}/events/values/?key=plan`)).toEqual([504, timedOut('name the events to look at with `event`')]);
        expect(await get(limited.http, `${base}/events/${eventUuid}/`)).toEqual([504, timedOut('try again when the database is less busy')]);
      });
    });

    it('stops the persons list, its CSV, a search, values and properties the same way', async () => {
      const advice = 'narrow the search or the filters, or ask for fewer persons with `limit`';
      await whileLocked('person', async () => {
        expect(await get(limited.http, `${base}/persons/`)).toEqual([
          504,
          {
            type: 'server_error',
            code: 'query_timeout',
            detail: 'The query ran longer than the limit of 300 ms (MANAGEMENT_QUERY_TIMEOUT_MS) and was stopped: narrow the search or the filters, or ask for fewer persons with `limit`.',
            attr: null,
          },
        ]);
        expect(await get(limited.http, `${base}/persons.csv`)).toEqual([504, timedOut(advice)]);
        expect(await get(limited.http, `${base}/persons/?search=alice`)).toEqual([504, timedOut(advice)]);
        expect(await get(limited.http, `${base}/persons/values/?key=email`)).toEqual([504, timedOut(SCAN_ADVICE)]);
        expect(await get(limited.http, `${base}/persons/properties/`)).toEqual([504, timedOut(SCAN_ADVICE)]);
      });
    });

    it('stops the event definitions list and the ingestion warnings summary the same way', async () => {
      await whileLocked('event_definition, ingestion_warning', async () => {
        const definitions = timedOut('narrow the search or `event_type`, or ask for fewer definitions with `limit`');
        expect(await get(limited.http, `${base}/event_definitions/?search=sign`)).toEqual([504, definitions]);
        expect(await get(limited.http, `${base}/ingestion_warnings/?q=x`)).toEqual([504, timedOut(SCAN_ADVICE)]);
      });
    });

    it('gives the connection back: with a pool of one, timed-out reads in a row leave the API serving', async () => {
      await whileLocked('event, person', async () => {
        for (const path of ['events/', 'persons/', 'events/', 'persons/?search=alice', 'events.csv']) {
          expect((await get(limited.http, `${base}/${path}`))[0]).toBe(504);
        }
        // The only connection is free again: a read of another table is answered while the lock is still held.
        const project = await get(limited.http, `${base}/`);
        expect([project[0], (project[1] as { id: number }).id]).toEqual([200, t.keys.projectId]);
      });
      const events = await get(limited.http, `${base}/events/`);
      expect([events[0], (events[1] as { results: Array<{ id: string }> }).results.map((e) => e.id)]).toEqual([200, [eventUuid]]);
      const persons = await get(limited.http, `${base}/persons/`);
      expect([persons[0], (persons[1] as { results: unknown[] }).results.length]).toEqual([200, 1]);
    });
  });
});
