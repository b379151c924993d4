import { sendJson } from '../support/capture-client';
import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

/** The persons API over persons made by the real capture path. */
describe('Persons API', () => {
  let t: TestApp;
  let base: string;
  const ids: Record<string, number> = {};

  const send = (batch: Array<Record<string, unknown>>) => ingestBatch(t, t.keys.projectApiKey, batch);
  const list = async (query = '') => {
    const res = await t.http.get(`${base}/${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  /** Each person by the distinct id it was first seen with (carol's is the one she has since identify). */
  const distinctIdsOf = (body: { results: Array<{ distinct_ids: string[] }> }) =>
    body.results.map((p) => (p.distinct_ids[0] === 'carol-anon' ? 'carol' : p.distinct_ids[0]));
  const filter = (filters: unknown) => `?properties=${encodeURIComponent(JSON.stringify(filters))}`;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}/persons`;
    const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
    await send([
      { event: 'signed_up', distinct_id: 'alice', timestamp: at(1), properties: { $set: { email: 'alice@example.com', plan: 'pro', age: 31, app_version: '1.2.3' } } },
      { event: 'signed_up', distinct_id: 'bob', timestamp: at(2), properties: { $set: { email: 'BOB@Example.org', plan: 'free', age: '27', beta: true } } },
      { event: 'visited', distinct_id: 'carol-anon', timestamp: at(3), properties: { $set: { name: 'Carol Jones', signed: '2025-06-01T00:00:00Z' } } },
      { event: 'visited', distinct_id: 'dave', timestamp: at(4), properties: { $set: { plan: 'pro', age: 45, app_version: '2.0.0-beta.1' } } },
    ]);
    await send([{ event: '$identify', distinct_id: 'carol', timestamp: at(5), properties: { $anon_distinct_id: 'carol-anon' } }]);
    for (const row of await t.sql<{ id: string; distinct_id: string }>('SELECT person_id AS id, distinct_id FROM person_distinct_id')) {
      ids[row.distinct_id] = Number(row.id);
    }
  });
  afterAll(() => t.close());

  describe('list', () => {
    it('lists persons newest first with the person shape and no count', async () => {
      const body = await list();
      expect(Object.keys(body).sort()).toEqual(['next', 'previous', 'results']);
      expect(distinctIdsOf(body)).toEqual(['dave', 'carol', 'bob', 'alice']);
      expect(body.results[1]).toEqual({
        id: ids.carol,
        uuid: expect.stringMatching(UUID),
        name: 'Carol Jones',
        distinct_ids: ['carol-anon', 'carol'],
        properties: { name: 'Carol Jones', signed: '2025-06-01T00:00:00Z' },
        created_at: '2026-01-01T00:03:00.000000Z',
        is_identified: true,
      });
      expect(body.results[3]).toMatchObject({ name: 'alice@example.com', is_identified: false });
      expect(body.results[0].name).toBe('dave');
    });

    it('pages with limit/offset and hands out next while the page is full', async () => {
      const first = await list('?limit=2');
      expect(distinctIdsOf(first)).toEqual(['dave', 'carol']);
      expect(first.previous).toBeNull();
      expect(new URL(first.next).search).toBe('?limit=2&offset=2');
      const second = await t.http.get(new URL(first.next).pathname + new URL(first.next).search);
      expect(distinctIdsOf(second.body)).toEqual(['bob', 'alice']);
      expect(second.body.previous).toMatch(/\?limit=2$/);
      const third = await list('?limit=2&offset=4');
      expect(third).toEqual({ next: null, previous: expect.stringContaining('offset=2'), results: [] });
    });

    it('filters by any distinct id of the person', async () => {
      expect(distinctIdsOf(await list('?distinct_id=carol-anon'))).toEqual(['carol']);
      expect((await list('?distinct_id=nobody')).results).toEqual([]);
    });

    it('filters by exact email', async () => {
      expect(distinctIdsOf(await list('?email=alice%40example.com'))).toEqual(['alice']);
      expect((await list('?email=ALICE%40example.com')).results).toEqual([]);
    });

    it('searches email, name and distinct ids case-insensitively, and the uuid exactly', async () => {
      expect(distinctIdsOf(await list('?search=example'))).toEqual(['bob', 'alice']);
      expect(distinctIdsOf(await list('?search=JONES'))).toEqual(['carol']);
      expect(distinctIdsOf(await list('?search=DAV'))).toEqual(['dave']);
      const [{ uuid }] = await t.sql<{ uuid: string }>('SELECT uuid::text FROM person WHERE id = $1', [ids.bob]);
      expect(distinctIdsOf(await list(`?search=${uuid.toUpperCase()}`))).toEqual(['bob']);
      expect((await list('?search=%25')).results).toEqual([]);
    });

    it.each([
      ['exact', [{ key: 'plan', value: 'pro', type: 'person' }], ['dave', 'alice']],
      // PostHog's persons list compares exact case-sensitively; only its flags ignore case.
      ['exact, case-sensitive', [{ key: 'plan', value: 'PRO', type: 'person' }], []],
      ['is_not, case-sensitive', [{ key: 'plan', value: 'PRO', operator: 'is_not', type: 'person' }], ['dave', 'carol', 'bob', 'alice']],
      ['exact with a list', [{ key: 'plan', value: ['free', 'x'], operator: 'exact', type: 'person' }], ['bob']],
      ['is_not (missing keys match)', [{ key: 'plan', value: 'pro', operator: 'is_not', type: 'person' }], ['carol', 'bob']],
      ['icontains', [{ key: 'email', value: 'EXAMPLE.', operator: 'icontains', type: 'person' }], ['bob', 'alice']],
      ['not_icontains', [{ key: 'email', value: 'org', operator: 'not_icontains', type: 'person' }], ['dave', 'carol', 'alice']],
      ['regex', [{ key: 'email', value: '^[a-z]+@', operator: 'regex', type: 'person' }], ['alice']],
      ['invalid regex matches nothing', [{ key: 'email', value: '(', operator: 'regex', type: 'person' }], []],
      ['gt on numbers and numeric strings', [{ key: 'age', value: '30', operator: 'gt', type: 'person' }], ['dave', 'alice']],
      ['lte', [{ key: 'age', value: 31, operator: 'lte', type: 'person' }], ['bob', 'alice']],
      ['is_set', [{ key: 'beta', operator: 'is_set', type: 'person' }], ['bob']],
      ['is_not_set', [{ key: 'age', operator: 'is_not_set', type: 'person' }], ['carol']],
      ['boolean exact', [{ key: 'beta', value: ['true'], operator: 'exact', type: 'person' }], ['bob']],
      ['is_date_before', [{ key: 'signed', value: '2025-07-01', operator: 'is_date_before', type: 'person' }], ['carol']],
      ['is_date_after (relative)', [{ key: 'signed', value: '-1d', operator: 'is_date_after', type: 'person' }], []],
      ['semver_gte', [{ key: 'app_version', value: '1.3.0', operator: 'semver_gte', type: 'person' }], ['dave']],
      ['semver_caret', [{ key: 'app_version', value: '1.0.0', operator: 'semver_caret', type: 'person' }], ['dave', 'alice']],
      ['untyped filters are person filters', [{ key: 'plan', value: 'free' }], ['bob']],
      ['AND of filters', [{ key: 'plan', value: 'pro' }, { key: 'age', value: 40, operator: 'gt' }], ['dave']],
      ['OR group', { type: 'OR', values: [{ key: 'plan', value: 'free' }, { key: 'name', operator: 'is_set' }] }, ['carol', 'bob']],
      ['negation', [{ key: 'plan', value: 'pro', negation: true }], ['carol', 'bob']],
    ])('filters properties: %s', async (_name, filters, expected) => {
      expect(distinctIdsOf(await list(filter(filters)))).toEqual(expected);
    });

    it('filters by cohort membership (static list and property definition)', async () => {
      const [{ id: staticId }] = await t.sql<{ id: number }>(
        `INSERT INTO cohort (project_id, name, is_static) VALUES ($1, 'vips', true) RETURNING id`,
        [t.keys.projectId],
      );
      await t.sql('INSERT INTO cohort_person (cohort_id, person_id) VALUES ($1, $2)', [staticId, ids.bob]);
      const [{ id: dynamicId }] = await t.sql<{ id: number }>(
        `INSERT INTO cohort (project_id, name, filters) VALUES ($1, 'pros', $2) RETURNING id`,
        [t.keys.projectId, { properties: { type: 'AND', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] }] } }],
      );
      expect(distinctIdsOf(await list(filter([{ key: 'id', value: staticId, type: 'cohort' }])))).toEqual(['bob']);
      expect(distinctIdsOf(await list(filter([{ key: 'id', value: dynamicId, type: 'cohort' }])))).toEqual(['dave', 'alice']);
      expect(distinctIdsOf(await list(filter([{ key: 'id', value: dynamicId, type: 'cohort', operator: 'not_in' }])))).toEqual(['carol', 'bob']);
      expect((await list(filter([{ key: 'id', value: 999999, type: 'cohort' }]))).results).toEqual([]);
      const cohorts = await t.http.get(`${base}/cohorts/?person_id=${ids.alice}`);
      expect(cohorts.status).toBe(200);
      expect(cohorts.body).toEqual({
        results: [{ id: dynamicId, name: 'pros', description: '', is_static: false, filters: expect.any(Object), deleted: false, created_at: expect.stringMatching(TIMESTAMP) }],
      });
      const bobs = await t.http.get(`${base}/cohorts/?person_id=${ids.bob}`);
      expect(bobs.body.results.map((c: { id: number }) => c.id)).toEqual([staticId]);
      await t.sql('DELETE FROM cohort WHERE id = ANY($1)', [[staticId, dynamicId]]);
    });

    it.each([
      ['not JSON', 'not-json', 'Properties are unparsable!'],
      ['not a filter', '[1]', 'Properties are unparsable!'],
      ['no key', '[{"value":1}]', 'Property filter is missing a key.'],
      ['unknown operator', '[{"key":"a","operator":"is_cool"}]', 'Unknown operator "is_cool". Use one of exact, is_not, icontains, not_icontains, regex, not_regex, gt, gte, lt, lte, is_set, is_not_set, is_date_exact, is_date_before, is_date_after, '
        + 'starts_with, not_starts_with, ends_with, not_ends_with, icontains_multi, not_icontains_multi, semver_eq, semver_neq, semver_gt, semver_gte, semver_lt, '
        + 'semver_lte, semver_tilde, semver_caret, semver_wildcard.'],
      ['in on a property', '[{"key":"a","operator":"in","value":[1]}]', 'Operator "in" does not apply to person filters. Use one of exact, is_not, icontains, not_icontains, regex, not_regex, gt, gte, lt, lte, is_set, is_not_set, is_date_exact, is_date_before, is_date_after, '
        + 'starts_with, not_starts_with, ends_with, not_ends_with, icontains_multi, not_icontains_multi, semver_eq, semver_neq, semver_gt, semver_gte, semver_lt, '
        + 'semver_lte, semver_tilde, semver_caret, semver_wildcard.'],
      ['an Object.prototype name as operator', '[{"key":"a","operator":"constructor","value":"x"}]', 'Unknown operator "constructor". Use one of exact, is_not, icontains, not_icontains, regex, not_regex, gt, gte, lt, lte, is_set, is_not_set, is_date_exact, is_date_before, is_date_after, '
        + 'starts_with, not_starts_with, ends_with, not_ends_with, icontains_multi, not_icontains_multi, semver_eq, semver_neq, semver_gt, semver_gte, semver_lt, '
        + 'semver_lte, semver_tilde, semver_caret, semver_wildcard.'],
      ['a type the persons list does not read', '[{"key":"text","type":"element"}]', 'Property filters of type "element" are not supported here: use person, cohort (insights read every type).'],
      ['a misspelt type', '[{"key":"a","type":"persn"}]', 'Unknown property filter type "persn". Did you mean person? Use one of event, person, group, cohort, element, session.'],
    ])('refuses bad property filters with 400: %s', async (_name, raw, detail) => {
      const res = await t.http.get(`${base}/?properties=${encodeURIComponent(raw)}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalid(detail));
    });
  });

  describe('retrieve', () => {
    it('finds a person by id and by uuid', async () => {
      const byId = await t.http.get(`${base}/${ids.alice}/`);
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({ id: ids.alice, distinct_ids: ['alice'], name: 'alice@example.com' });
      const byUuid = await t.http.get(`${base}/${byId.body.uuid}/`);
      expect(byUuid.body).toEqual(byId.body);
    });

    it('answers 400 for an id that is neither an id nor a uuid, 404 for an unknown one', async () => {
      const bad = await t.http.get(`${base}/alice/`);
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual(
        invalid('The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=<value> instead.'),
      );
      for (const id of ['999999999', '00000000-0000-4000-8000-000000000000']) {
        const res = await t.http.get(`${base}/${id}/`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    });
  });

  describe('writes', () => {
    it('creates a person whose uuid is its distinct id (201)', async () => {
      const res = await t.http.post(`${base}/`, { properties: { email: 'new@example.com' } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        uuid: expect.stringMatching(UUID),
        name: 'new@example.com',
        distinct_ids: [res.body.uuid],
        properties: { email: 'new@example.com' },
        created_at: expect.stringMatching(TIMESTAMP),
        is_identified: false,
      });
      expect((await t.http.get(`${base}/${res.body.id}/`)).body).toEqual(res.body);
    });

    it('requires properties on create and PATCH', async () => {
      const res = await t.http.post(`${base}/`, {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalid('This field is required.', 'properties', 'required'));
      const patch = await t.http.patch(`${base}/${ids.alice}/`, { properties: 'x' });
      expect(patch.status).toBe(400);
      expect(patch.body).toEqual(invalid('Expected a dictionary of items.', 'properties'));
    });

    it('PATCH merges properties ($set) and answers the person; flag evaluation sees it at once', async () => {
      const flag = await t.http.post(`/api/projects/${t.keys.projectId}/feature_flags/`, {
        key: 'vip-only',
        filters: { groups: [{ properties: [{ key: 'vip', value: ['yes'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }] },
      });
      expect(flag.status).toBe(201);
      const versionBefore = await t.sql('SELECT flags_version FROM project WHERE id = $1', [t.keys.projectId]);
      const res = await t.http.patch(`${base}/${ids.alice}/`, { properties: { vip: 'yes', plan: 'enterprise' } });
      expect(res.status).toBe(200);
      expect(res.body.properties).toEqual({ email: 'alice@example.com', plan: 'enterprise', age: 31, app_version: '1.2.3', vip: 'yes' });
      const decide = await sendJson(t, '/decide/?v=3', { api_key: t.keys.projectApiKey, distinct_id: 'alice' });
      expect(decide.status).toBe(200);
      expect(decide.body.featureFlags).toEqual({ 'vip-only': true });
      expect(await t.sql('SELECT flags_version FROM project WHERE id = $1', [t.keys.projectId])).toEqual(versionBefore);
    });

    it('delete_property removes the key named by $unset (body or query)', async () => {
      const res = await t.http.post(`${base}/${ids.alice}/delete_property/`, { $unset: 'vip' });
      expect(res.status).toBe(200);
      expect(res.body.properties).not.toHaveProperty('vip');
      const viaQuery = await t.http.post(`${base}/${ids.alice}/delete_property/?$unset=age`, {});
      expect(viaQuery.body.properties).toEqual({ email: 'alice@example.com', plan: 'enterprise', app_version: '1.2.3' });
      const missing = await t.http.post(`${base}/${ids.alice}/delete_property/`, {});
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(invalid('This field is required.', '$unset', 'required'));
    });

    it('update_property sets key to the JSON value when it parses, else the text', async () => {
      const set = (value: unknown) => t.http.post(`${base}/${ids.alice}/update_property/`, { key: 'score', value });
      expect((await set('5')).body.properties.score).toBe(5);
      expect((await set('{"a":[1]}')).body.properties.score).toEqual({ a: [1] });
      expect((await set('plain text')).body.properties.score).toBe('plain text');
      expect((await set(null)).body.properties.score).toBeNull();
      const viaQuery = await t.http.post(`${base}/${ids.alice}/update_property/?key=q&value=true`);
      expect(viaQuery.status).toBe(200);
      expect(viaQuery.body.properties.q).toBe(true);
      const missing = await t.http.post(`${base}/${ids.alice}/update_property/`, { key: 'x' });
      expect(missing.body).toEqual(invalid('This field is required.', 'value', 'required'));
    });

    it('split gives every distinct id but the first a new person', async () => {
      const res = await t.http.post(`${base}/${ids.carol}/split/`, {});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: ids.carol, distinct_ids: ['carol-anon'], properties: { name: 'Carol Jones' } });
      const moved = await list('?distinct_id=carol');
      expect(moved.results).toEqual([expect.objectContaining({ distinct_ids: ['carol'], properties: {}, name: 'carol' })]);
      expect(moved.results[0].id).not.toBe(ids.carol);
    });

    it('records every write in the person activity log', async () => {
      const res = await t.http.get(`${base}/${ids.alice}/activity/`);
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(8);
      expect(res.body.results[0]).toEqual({
        id: expect.any(String),
        user: { first_name: expect.any(String), email: t.keys.email },
        activity: 'updated',
        created_at: expect.any(String),
        scope: 'Person',
        item_id: String(ids.alice),
        detail: {
          changes: [{ type: 'Person', action: 'changed', field: 'properties', before: expect.any(Object), after: expect.any(Object) }],
          trigger: null,
          name: 'alice@example.com',
          short_id: null,
          type: null,
        },
      });
      expect(res.body.results.map((r: { activity: string }) => r.activity)).toContain('delete_property');
      const all = await t.http.get(`${base}/activity/?limit=100`);
      expect(all.body.results.map((r: { activity: string }) => r.activity)).toEqual(expect.arrayContaining(['created', 'split_person', 'updated']));
    });

    it('DELETE answers 204; delete_events=true also deletes the events; a second delete is 404', async () => {
      await send([{ event: 'doomed', distinct_id: 'temp-user', properties: { $set: { a: 1 } } }]);
      const [{ id }] = await t.sql<{ id: string }>(`SELECT person_id AS id FROM person_distinct_id WHERE distinct_id = 'temp-user'`);
      const res = await t.http.delete(`${base}/${id}/?delete_events=true`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await t.sql(`SELECT 1 FROM event WHERE distinct_id = 'temp-user'`)).toEqual([]);
      expect((await t.http.get(`${base}/${id}/`)).status).toBe(404);
      expect((await t.http.delete(`${base}/${id}/`)).status).toBe(404);
      await send([{ event: 'kept', distinct_id: 'temp-2' }]);
      const [other] = await t.sql<{ id: string }>(`SELECT person_id AS id FROM person_distinct_id WHERE distinct_id = 'temp-2'`);
      expect((await t.http.delete(`${base}/${other.id}/`)).status).toBe(204);
      expect(await t.sql(`SELECT event FROM event WHERE distinct_id = 'temp-2'`)).toEqual([{ event: 'kept' }]);
    });

    it('DELETE with keep_person=true deletes only the events asked for and keeps the person', async () => {
      await send([
        { event: 'gone', distinct_id: 'keeper', properties: { $set: { plan: 'kept' } } },
        { event: 'gone', distinct_id: 'keeper' },
      ]);
      const [{ id }] = await t.sql<{ id: string }>(`SELECT person_id AS id FROM person_distinct_id WHERE distinct_id = 'keeper'`);
      const eventsOf = () => t.sql(`SELECT event FROM event WHERE distinct_id = 'keeper'`);
      expect((await t.http.delete(`${base}/${id}/?keep_person=1`)).status).toBe(204);
      expect(await eventsOf()).toHaveLength(2);
      const res = await t.http.delete(`${base}/${id}/?keep_person=TRUE&delete_events=true`);
      expect(res.status).toBe(204);
      expect(await eventsOf()).toEqual([]);
      const person = await t.http.get(`${base}/${id}/`);
      expect([person.status, person.body.properties.plan, person.body.distinct_ids]).toEqual([200, 'kept', ['keeper']]);
      expect((await t.http.delete(`${base}/${id}/?keep_person=false`)).status).toBe(204);
      expect((await t.http.get(`${base}/${id}/`)).status).toBe(404);
    });
  });

  describe('values and properties', () => {
    it('lists the most common values of a person property with counts', async () => {
      const res = await t.http.get(`${base}/values/?key=plan`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { name: 'enterprise', count: 1 },
        { name: 'free', count: 1 },
        { name: 'pro', count: 1 },
      ]);
      expect((await t.http.get(`${base}/values/?key=plan&value=FRE`)).body).toEqual([{ name: 'free', count: 1 }]);
      expect((await t.http.get(`${base}/values/`)).body).toEqual([]);
    });

    it('lists person property names by how many persons have them', async () => {
      const res = await t.http.get(`${base}/properties/`);
      expect(res.status).toBe(200);
      expect(res.body.slice(0, 2)).toEqual([
        { name: 'email', count: 3 },
        { name: 'plan', count: 3 },
      ]);
    });
  });
});
