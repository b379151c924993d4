import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

/** What only project B holds: if it ever shows up in a reply to project A, isolation is broken. */
const B_MARKER = 'only-in-project-b';

const ODD_INPUTS: Array<[string, string]> = [
  ['single quote', "' OR '1'='1"],
  ['comment', "x'; DROP TABLE person; --"],
  ['double quote', '"a"="a"'],
  ['NUL', 'a\u0000b'],
  ['unicode', 'ü🙂\u202e\u0301'],
  ['lone surrogate', '\ud800'],
  ['placeholder', '$1'],
  ['wildcards', '%_%'],
  ['backslash', '\\'],
  ['huge', 'x'.repeat(4000)],
  ['JSON object', '{"a":{"b":1}}'],
  ['JSON list', '[1,[2]]'],
  ['number', '-1e999'],
];

/** Percent-encoding; a lone surrogate goes out as the invalid UTF-8 bytes a careless client would send. */
const enc = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.split('').map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
  }
};

/** Property filters with odd keys and values, each meant to reach SQL as bound parameters only. */
const oddFilters = (text: string): unknown[][] => [
  [{ key: text, value: 'x' }],
  [{ key: 'email', value: text, operator: 'icontains', type: 'person' }],
  [{ key: 'email', value: text, operator: 'regex', type: 'person' }],
  [{ key: 'n', value: text, operator: 'gt' }],
  [{ key: 'd', value: text, operator: 'is_date_before' }],
  [{ key: 'v', value: text, operator: 'semver_gt' }],
  [{ key: text, value: [text, 1, null, { nested: text }], operator: 'is_not' }],
  [{ key: 'id', value: text, type: 'cohort' }],
];

/** SQL-injection and odd-input table, cross-project isolation and CSV output over the data routes. */
describe('Persons, events and definitions: odd input, isolation, CSV', () => {
  let t: TestApp;
  let projectB: number;
  let keyB: string;
  let ids: { personB: number; personBUuid: string; eventB: string; definitionB: string; personA: number };
  const a = () => `/api/projects/${t.keys.projectId}`;

  const send = (token: string, batch: Array<Record<string, unknown>>) => ingestBatch(t, token, batch);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    const provisioning = t.app.get(ProvisioningService);
    await provisioning.createUser({ email: 'b-owner@example.com', level: MembershipLevel.Member });
    const other = await provisioning.createOrganization('Project B org', 'b-owner@example.com');
    projectB = other.project.id;
    keyB = await provisioning.createPersonalKey({ email: 'b-owner@example.com', label: 'b', scopes: ['*'], projectIds: [projectB] });
    const shared = (marker: string) => [
      { event: 'shared_event', distinct_id: 'shared-user', timestamp: '2026-01-01T00:00:00Z', properties: { $set: { email: `${marker}@example.com`, marker }, marker, formula: '=1+1' } },
      { event: `event_${marker.replace(/-/g, '_')}`, distinct_id: 'shared-user', timestamp: '2026-01-01T00:01:00Z', properties: { marker } },
    ];
    await send(t.keys.projectApiKey, shared('project-a'));
    await send(other.project.apiToken, shared(B_MARKER));
    const [personB] = await t.sql<{ id: string; uuid: string }>('SELECT id, uuid FROM person WHERE project_id = $1', [projectB]);
    const [personA] = await t.sql<{ id: string }>('SELECT id FROM person WHERE project_id = $1', [t.keys.projectId]);
    const [eventB] = await t.sql<{ uuid: string }>('SELECT uuid::text FROM event WHERE project_id = $1 LIMIT 1', [projectB]);
    const [definitionB] = await t.sql<{ id: string }>('SELECT id FROM event_definition WHERE project_id = $1 LIMIT 1', [projectB]);
    ids = { personB: Number(personB.id), personBUuid: personB.uuid, eventB: eventB.uuid, definitionB: definitionB.id, personA: Number(personA.id) };
  });
  afterAll(() => t.close());

  /** Every read route of project A with a query string; none may answer 500 or show project B. */
  const readRoutes = (q: (name: string) => string) => [
    `${a()}/persons/?${q('distinct_id')}&${q('email')}`,
    `${a()}/persons/?${q('search')}`,
    `${a()}/persons/values/?${q('key')}&${q('value')}`,
    `${a()}/persons/cohorts/?${q('person_id')}`,
    `${a()}/persons/activity/?${q('page')}&${q('limit')}`,
    `${a()}/events/?${q('event')}&${q('distinct_id')}`,
    `${a()}/events/?${q('person_id')}&${q('limit')}&${q('offset')}`,
    `${a()}/events/?${q('after')}`,
    `${a()}/events/?${q('before')}&${q('before_id')}`,
    `${a()}/events/?orderBy=%5B%22timestamp%22%5D&${q('after')}&${q('after_id')}`,
    `${a()}/events/?${q('orderBy')}&${q('include_person')}&${q('action_id')}`,
    `${a()}/events/values/?${q('key')}&${q('value')}&${q('event')}`,
    `${a()}/event_definitions/?${q('search')}&${q('event_type')}&${q('ordering')}`,
    `${a()}/persons/?format=csv&${q('search')}`,
    `${a()}/events.csv?${q('event')}`,
  ];

  const expectSafe = (res: { status: number; text: string }, label: string) => {
    if (res.status >= 500 || res.text.includes(B_MARKER)) throw new Error(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
    // 414/431: the HTTP layer refuses a URL or header that large before any handler runs.
    expect([200, 202, 400, 404, 414, 431]).toContain(res.status);
  };

  describe('odd input on every filter', () => {
    it.each(ODD_INPUTS)('query parameters: %s', async (_name, text) => {
      for (const path of readRoutes((name) => `${name}=${enc(text)}`)) expectSafe(await t.http.get(path), path);
    });

    it.each(ODD_INPUTS)('property filters on persons and events: %s', async (_name, text) => {
      for (const filters of oddFilters(text)) {
        const raw = enc(JSON.stringify(filters));
        for (const path of [`${a()}/persons/?properties=${raw}`, `${a()}/events/?properties=${raw}`]) expectSafe(await t.http.get(path), path);
      }
    });

    it.each(ODD_INPUTS)('path ids: %s', async (_name, text) => {
      const id = enc(text.slice(0, 200));
      for (const path of [`${a()}/persons/${id}/`, `${a()}/events/${id}/`, `${a()}/event_definitions/${id}/`, `${a()}/persons/${id}/activity/`]) {
        expectSafe(await t.http.get(path), path);
      }
    });

    it.each(ODD_INPUTS)('person writes: %s', async (_name, text) => {
      const person = `${a()}/persons/${ids.personA}`;
      expectSafe(await t.http.patch(`${person}/`, { properties: { [text]: text } }), 'patch');
      expectSafe(await t.http.post(`${person}/update_property/`, { key: text, value: text }), 'update_property');
      expectSafe(await t.http.post(`${person}/delete_property/`, { $unset: text }), 'delete_property');
      expectSafe(await t.http.post(`${person}/split/`, { main_distinct_id: text }), 'split');
      expectSafe(await t.http.post(`${a()}/persons/bulk_delete/`, { distinct_ids: [text] }), 'bulk_delete by distinct id');
      expectSafe(await t.http.post(`${a()}/persons/bulk_delete/`, { ids: [text] }), 'bulk_delete by id');
    });

    it('a filter that matches everything in SQL terms still matches only what it says', async () => {
      const res = await t.http.get(`${a()}/persons/?properties=${encodeURIComponent(JSON.stringify([{ key: "email' OR 1=1 --", value: 'x' }]))}`);
      expect(res.status).toBe(200);
      expect(res.body.results).toEqual([]);
      expect((await t.http.get(`${a()}/persons/?distinct_id=${encodeURIComponent("x' OR '1'='1")}`)).body.results).toEqual([]);
      expect((await t.sql('SELECT count(*)::int AS n FROM person'))[0]).toEqual({ n: 2 });
    });
  });

  describe('cross-project isolation', () => {
    it('project A lists and searches show none of project B', async () => {
      for (const path of readRoutes(() => 'limit=1000')) expectSafe(await t.http.get(path), path);
      const persons = await t.http.get(`${a()}/persons/?distinct_id=shared-user`);
      expect(persons.body.results.map((p: { properties: { marker: string } }) => p.properties.marker)).toEqual(['project-a']);
      expect((await t.http.get(`${a()}/persons/?search=${B_MARKER}`)).body.results).toEqual([]);
      expect((await t.http.get(`${a()}/events/?distinct_id=shared-user`)).body.results).toHaveLength(2);
      expect((await t.http.get(`${a()}/events/?person_id=${ids.personB}`)).body.results).toEqual([]);
      expect((await t.http.get(`${a()}/persons/values/?key=marker`)).body).toEqual([{ name: 'project-a', count: 1 }]);
      expect((await t.http.get(`${a()}/event_definitions/`)).body.count).toBe(2);
    });

    it("project B's ids are 404 under project A, for reads and writes, and B is left untouched", async () => {
      const paths = [
        ['GET', `${a()}/persons/${ids.personB}/`],
        ['GET', `${a()}/persons/${ids.personBUuid}/`],
        ['GET', `${a()}/persons/${ids.personB}/activity/`],
        ['GET', `${a()}/persons/cohorts/?person_id=${ids.personB}`],
        ['PATCH', `${a()}/persons/${ids.personB}/`],
        ['POST', `${a()}/persons/${ids.personB}/update_property/`],
        ['POST', `${a()}/persons/${ids.personB}/delete_property/`],
        ['POST', `${a()}/persons/${ids.personB}/split/`],
        ['DELETE', `${a()}/persons/${ids.personB}/?delete_events=true`],
        ['GET', `${a()}/events/${ids.eventB}/`],
        ['GET', `${a()}/event_definitions/${ids.definitionB}/`],
        ['PATCH', `${a()}/event_definitions/${ids.definitionB}/`],
      ];
      const body = { properties: { hacked: true }, key: 'hacked', value: 'true', $unset: 'marker', description: 'hacked' };
      for (const [method, path] of paths) {
        const res = await t.http.request(method, path, method === 'GET' || method === 'DELETE' ? {} : { json: body });
        expect({ path, method, status: res.status }).toEqual({ path, method, status: 404 });
      }
      const [personB] = await t.sql<{ properties: Record<string, unknown> }>('SELECT properties FROM person WHERE id = $1', [ids.personB]);
      expect(personB.properties).toEqual({ email: `${B_MARKER}@example.com`, marker: B_MARKER });
      expect(await t.sql('SELECT count(*)::int AS n FROM event WHERE project_id = $1', [projectB])).toEqual([{ n: 2 }]);
      expect(await t.sql(`SELECT description FROM event_definition WHERE id = $1`, [ids.definitionB])).toEqual([{ description: '' }]);
    });

    it("project A's key cannot open project B's routes, and B's key sees only B", async () => {
      for (const route of ['persons/', 'events/', 'event_definitions/', 'persons/values/?key=marker', 'persons/properties/']) {
        const res = await t.http.get(`/api/projects/${projectB}/${route}`);
        expect([403, 404]).toContain(res.status);
        expect(res.text).not.toContain(B_MARKER);
      }
      const own = await t.http.get(`/api/projects/${projectB}/persons/`, { key: keyB });
      expect(own.body.results.map((p: { properties: { marker: string } }) => p.properties.marker)).toEqual([B_MARKER]);
      const foreign = await t.http.get(`${a()}/persons/`, { key: keyB });
      expect([403, 404]).toContain(foreign.status);
    });
  });

  describe('CSV', () => {
    it('renders the person list as CSV with dotted columns (format=csv and the .csv suffix)', async () => {
      for (const path of [`${a()}/persons/?format=csv`, `${a()}/persons.csv`]) {
        const res = await t.http.get(path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        const [header, row, end] = res.text.split('\r\n');
        expect(header).toBe('created_at,distinct_ids.0,id,is_identified,name,properties.email,properties.marker,uuid');
        expect(row).toContain(',shared-user,');
        expect(row).toContain(',project-a@example.com,project-a,');
        expect(end).toBe('');
      }
    });

    it('renders events as CSV, neutralising formula cells', async () => {
      const res = await t.http.get(`${a()}/events/?format=csv&event=shared_event`);
      expect(res.status).toBe(200);
      const [header, row] = res.text.split('\r\n');
      expect(header.split(',')).toEqual(
        expect.arrayContaining(['distinct_id', 'event', 'id', 'person.distinct_ids.0', 'properties.formula', 'properties.marker', 'timestamp']),
      );
      expect(row).toContain(",'=1+1,");
      const suffix = await t.http.get(`${a()}/events.csv?event=shared_event`);
      expect(suffix.text).toBe(res.text);
    });
  });
});
