import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });
const ASCENDING = encodeURIComponent('["timestamp"]');
const DESCENDING = encodeURIComponent('["-timestamp"]');
/** What only project B holds: if it ever shows up in a reply to project A, isolation is broken. */
const B_MARKER = 'only-in-project-b';

interface EventJson {
  id: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: { i?: number; step?: number; marker?: string };
  person: unknown;
}

/** orderBy (and its keyset paging), include_person and action_id on the events API, over events stored by capture. */
describe('Events API: orderBy, include_person, action_id', () => {
  let t: TestApp;
  let base: string;
  let keyB: string;
  let projectB: number;
  const send = (token: string, batch: Array<Record<string, unknown>>) => ingestBatch(t, token, batch);
  const list = async (query: string): Promise<{ next: string | null; results: EventJson[] }> => {
    const res = await t.http.get(`${base}/${query}`);
    expect({ query, status: res.status }).toEqual({ query, status: 200 });
    return res.body;
  };
  const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
  /** Follows `next` to the end; every page must answer 200. */
  const walk = async (first: string) => {
    const pages: Array<{ next: string | null; results: EventJson[] }> = [];
    let path: string | null = `${base}/${first}`;
    while (path) {
      const res: { status: number; body: { next: string | null; results: EventJson[] } } = await t.http.get(path);
      expect(res.status).toBe(200);
      pages.push(res.body);
      path = res.body.next ? pathOf(res.body.next) : null;
      if (pages.length > 20) throw new Error('paging does not end');
    }
    return pages;
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}/events`;
    const provisioning = t.app.get(ProvisioningService);
    await provisioning.createUser({ email: 'b-owner@example.com', level: MembershipLevel.Member });
    const other = await provisioning.createOrganization('Project B org', 'b-owner@example.com');
    projectB = other.project.id;
    keyB = await provisioning.createPersonalKey({ email: 'b-owner@example.com', label: 'b', scopes: ['*'], projectIds: [projectB] });
    // Three steps a minute apart, then 25 ticks: 15 sharing one timestamp and 10 sharing the next.
    await send(t.keys.projectApiKey, [
      { event: 'step', distinct_id: 'walker', timestamp: '2026-01-01T00:02:00.000Z', properties: { step: 2, $set: { email: 'walker@example.com', plan: 'pro' } } },
      { event: 'step', distinct_id: 'walker', timestamp: '2026-01-01T00:01:00.000Z', properties: { step: 1 } },
      { event: 'step', distinct_id: 'walker', timestamp: '2026-01-01T00:03:00.123Z', properties: { step: 3 } },
      ...Array.from({ length: 25 }, (_, i) => ({
        event: 'tick',
        distinct_id: 'ticker',
        timestamp: i < 15 ? '2026-01-02T00:00:00.000Z' : '2026-01-02T00:00:01.000Z',
        properties: { i },
      })),
    ]);
    // Project B: the same names and ids, older, so an oldest-first list of A would show them first if it leaked.
    await send(other.project.apiToken, [
      { event: 'step', distinct_id: 'walker', timestamp: '2025-06-01T00:00:00.000Z', properties: { step: 0, marker: B_MARKER, $set: { email: `${B_MARKER}@example.com` } } },
      { event: 'tick', distinct_id: 'ticker', timestamp: '2025-06-01T00:00:01.000Z', properties: { i: -1, marker: B_MARKER } },
    ]);
  });
  afterAll(() => t.close());

  describe('orderBy', () => {
    it('lists newest first by default and with ["-timestamp"], oldest first with ["timestamp"]', async () => {
      const steps = (body: { results: EventJson[] }) => body.results.map((e) => e.properties.step);
      expect(steps(await list('?event=step'))).toEqual([3, 2, 1]);
      expect(steps(await list(`?event=step&orderBy=${DESCENDING}`))).toEqual([3, 2, 1]);
      const ascending = await list(`?event=step&orderBy=${ASCENDING}`);
      expect(steps(ascending)).toEqual([1, 2, 3]);
      expect(ascending.results.map((e) => e.timestamp)).toEqual(['2026-01-01T00:01:00+00:00', '2026-01-01T00:02:00+00:00', '2026-01-01T00:03:00.123000+00:00']);
      expect(ascending.next).toBeNull();
    });

    it('pages oldest first with after + after_id, keeping every other parameter, never repeating or skipping tied events', async () => {
      const pages = await walk(`?event=tick&orderBy=${ASCENDING}&limit=10&offset=0`);
      expect(pages.map((page) => page.results.length)).toEqual([10, 10, 5]);
      const seen = pages.flatMap((page) => page.results);
      expect(seen.map((e) => e.properties.i).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 25 }, (_, i) => i));
      // Oldest first across the pages: the 15 events of the first second, then the 10 of the next.
      expect(seen.map((e) => e.timestamp)).toEqual([...Array(15).fill('2026-01-02T00:00:00+00:00'), ...Array(10).fill('2026-01-02T00:00:01+00:00')]);
      // The same order as one page holding everything (ties broken by uuid, descending).
      expect(seen.map((e) => e.id)).toEqual((await list(`?event=tick&orderBy=${ASCENDING}`)).results.map((e) => e.id));
      const next = new URL(pages[0].next!);
      expect(Object.fromEntries(next.searchParams)).toEqual({
        event: 'tick',
        orderBy: '["timestamp"]',
        limit: '10',
        after: pages[0].results[9].timestamp,
        after_id: pages[0].results[9].id,
      });
    });

    it('pages newest first as before: before + before_id, in the exact reverse of the oldest-first order', async () => {
      const pages = await walk('?event=tick&limit=10');
      const newestFirst = pages.flatMap((page) => page.results.map((e) => e.id));
      const oldestFirst = (await list(`?event=tick&orderBy=${ASCENDING}`)).results.map((e) => e.id);
      expect(newestFirst).toEqual([...oldestFirst].reverse());
      expect(new URL(pages[0].next!).searchParams.has('after_id')).toBe(false);
      expect(new URL(pages[0].next!).searchParams.get('before_id')).toBe(pages[0].results[9].id);
    });

    it('keeps after and before as exclusive bounds in ascending order', async () => {
      const body = await list(`?orderBy=${ASCENDING}&after=2026-01-01T00:01:00Z&before=2026-01-02T00:00:00Z`);
      expect(body.results.map((e) => e.properties.step)).toEqual([2, 3]);
    });

    it('orders CSV exports too', async () => {
      const res = await t.http.get(`${base}/?format=csv&event=step&orderBy=${ASCENDING}`);
      expect(res.status).toBe(200);
      const [header, ...rows] = res.text.trim().split('\r\n');
      const column = header.split(',').indexOf('properties.step');
      expect(rows.map((row) => row.split(',')[column])).toEqual(['1', '2', '3']);
      const suffix = await t.http.get(`${base}.csv?event=step&orderBy=${DESCENDING}`);
      expect(suffix.text.trim().split('\r\n').slice(1).map((row) => row.split(',')[column])).toEqual(['3', '2', '1']);
    });

    it('refuses invalid JSON, a non-list and unknown fields with 400 naming orderBy, for JSON and CSV', async () => {
      const notAList = invalid('orderBy must be a JSON list such as ["-timestamp"] or ["timestamp"].', 'orderBy');
      const cases: Array<[string, unknown]> = [
        ['[timestamp', notAList],
        ['"timestamp"', notAList],
        ['{"field":"timestamp"}', notAList],
        ['["event"]', invalid('Events cannot be ordered by "event": only "timestamp" and "-timestamp" are supported.', 'orderBy')],
        ['["timestamp",7]', invalid('Events cannot be ordered by 7: only "timestamp" and "-timestamp" are supported.', 'orderBy')],
      ];
      for (const [orderBy, body] of cases) {
        for (const path of [`${base}/?orderBy=${encodeURIComponent(orderBy)}`, `${base}/?format=csv&orderBy=${encodeURIComponent(orderBy)}`, `${base}.csv?orderBy=${encodeURIComponent(orderBy)}`]) {
          const res = await t.http.get(path);
          expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body });
        }
      }
    });

    it('ties each cursor to its order: after_id needs ["timestamp"], before_id needs the default order', async () => {
      const id = '018f0000-0000-7000-8000-000000000001';
      const wrongAfter = await t.http.get(`${base}/?after=2026-01-01&after_id=${id}`);
      expect(wrongAfter.status).toBe(400);
      expect(wrongAfter.body).toEqual(invalid('after_id pages events in the order ["timestamp"]; pass that orderBy too.', 'after_id'));
      const wrongBefore = await t.http.get(`${base}/?orderBy=${ASCENDING}&before=2026-01-03&before_id=${id}`);
      expect(wrongBefore.body).toEqual(invalid('before_id pages events in the order ["-timestamp"]; pass that orderBy too.', 'before_id'));
      const badId = await t.http.get(`${base}/?orderBy=${ASCENDING}&after=2026-01-01&after_id=nope`);
      expect(badId.body).toEqual(invalid('after_id needs after and must be an event id.', 'after_id'));
    });
  });

  describe('include_person', () => {
    const walker = { is_identified: false, distinct_ids: ['walker'], properties: { email: 'walker@example.com' } };

    it('fills in the person on list and retrieve by default, with include_person, =true and =1', async () => {
      for (const query of ['', '&include_person', '&include_person=true', '&include_person=1', '&include_person=True']) {
        const body = await list(`?event=step${query}`);
        expect(body.results.map((e) => e.person)).toEqual([walker, walker, walker]);
      }
      const [event] = (await list('?event=step')).results;
      for (const query of ['', '?include_person=true', '?include_person=1']) {
        const res = await t.http.get(`${base}/${event.id}/${query}`);
        expect(res.status).toBe(200);
        expect(res.body.person).toEqual(walker);
      }
    });

    it('leaves person null with include_person=false or 0, on list, retrieve and CSV', async () => {
      for (const value of ['false', '0', 'FALSE']) {
        const body = await list(`?event=step&include_person=${value}`);
        expect(body.results.map((e) => e.person)).toEqual([null, null, null]);
        expect(body.results.map((e) => e.properties.step)).toEqual([3, 2, 1]);
      }
      const [event] = (await list('?event=step')).results;
      const res = await t.http.get(`${base}/${event.id}/?include_person=0`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: event.id, event: 'step', person: null });
      const csv = await t.http.get(`${base}/?format=csv&event=step&include_person=false`);
      expect(csv.text.split('\r\n')[0]).not.toContain('person.');
      expect((await t.http.get(`${base}/?format=csv&event=step`)).text.split('\r\n')[0]).toContain('person.properties.email');
    });

    it('refuses a value that is not a boolean with 400, on list and retrieve', async () => {
      const [event] = (await list('?event=step')).results;
      for (const path of [`${base}/?include_person=maybe`, `${base}/${event.id}/?include_person=2`, `${base}.csv?include_person=yesno`]) {
        const res = await t.http.get(path);
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body: invalid('Must be a valid boolean.', 'include_person') });
      }
    });
  });

  describe('action_id', () => {
    it('answers an empty list for an action that does not exist, in JSON and CSV', async () => {
      expect(await list('?action_id=1')).toEqual({ next: null, results: [] });
      expect(await list(`?action_id=999&orderBy=${ASCENDING}&event=tick`)).toEqual({ next: null, results: [] });
      const csv = await t.http.get(`${base}/?format=csv&action_id=1`);
      expect(csv.status).toBe(200);
      expect(csv.text).toBe('');
    });

    it("lists an existing action's events, with the list's other filters and in both orders", async () => {
      const action = await t.http.post(`/api/projects/${t.keys.projectId}/actions/`, { name: 'Ticks', steps: [{ event: 'tick' }] });
      expect(action.status).toBe(201);
      const ticks = await list('?event=tick');
      expect(ticks.results.length).toBeGreaterThan(0);
      expect(await list(`?action_id=${action.body.id}`)).toEqual(ticks);
      expect(await list(`?action_id=${action.body.id}&orderBy=${ASCENDING}`)).toEqual(await list(`?event=tick&orderBy=${ASCENDING}`));
      expect(await list(`?action_id=${action.body.id}&event=step`)).toEqual({ next: null, results: [] });
    });

    it('refuses an action id that is not an integer', async () => {
      for (const value of ['abc', '1.5', '']) {
        const res = await t.http.get(`${base}/?action_id=${value}`);
        expect({ value, status: res.status, body: res.body }).toEqual({ value, status: 400, body: invalid('A valid integer is required.', 'action_id') });
      }
    });
  });

  describe('cross-project isolation', () => {
    it("oldest-first pages of project A never reach project B's older events or persons", async () => {
      const pages = await walk(`?orderBy=${ASCENDING}&limit=4`);
      const events = pages.flatMap((page) => page.results);
      expect(events).toHaveLength(28);
      expect(events[0]).toMatchObject({ event: 'step', properties: { step: 1 } });
      for (const page of pages) expect(JSON.stringify(page)).not.toContain(B_MARKER);
    });

    it("a cursor naming project B's event shows nothing of B", async () => {
      const [eventB] = await t.sql<{ uuid: string }>('SELECT uuid::text FROM event WHERE project_id = $1 LIMIT 1', [projectB]);
      const res = await t.http.get(`${base}/?orderBy=${ASCENDING}&after=2025-06-01T00:00:00Z&after_id=${eventB.uuid}`);
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(28);
      expect(res.text).not.toContain(B_MARKER);
    });

    it("project B's key cannot list project A's events, and sees only its own in either order", async () => {
      const foreign = await t.http.get(`${base}/?orderBy=${ASCENDING}`, { key: keyB });
      expect([403, 404]).toContain(foreign.status);
      const own = await t.http.get(`/api/projects/${projectB}/events/?orderBy=${ASCENDING}`, { key: keyB });
      expect(own.status).toBe(200);
      expect(own.body.results.map((e: EventJson) => e.properties.marker)).toEqual([B_MARKER, B_MARKER]);
      expect(own.body.results.map((e: EventJson) => (e.person as { properties: { email?: string } } | null)?.properties.email)).toEqual([
        `${B_MARKER}@example.com`,
        undefined,
      ]);
    });
  });
});
