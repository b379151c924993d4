import { CohortsService } from '../../src/modules/cohorts/cohorts.service';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { sendJson } from '../support/capture-client';
import { waitForQueuesIdle } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const invalid = (detail: string, attr: string | null = 'filters', code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

const person = (key: string, value: unknown, operator = 'exact') => ({ key, type: 'person', value, operator });
const tree = (...values: unknown[]) => ({ properties: { type: 'AND', values: [{ type: 'AND', values }] } });
const BEHAVIOURAL = { key: '$pageview', type: 'behavioral', value: 'performed_event', event_type: 'events', time_value: 30, time_interval: 'day' };

describe('Cohorts API', () => {
  let t: TestApp;
  let base: string;
  let admin: { id: number; uuid: string; email: string };
  const uuids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}/cohorts`;
    [admin] = await t.sql<{ id: number; uuid: string; email: string }>('SELECT id, uuid, email FROM app_user WHERE email = $1', [t.keys.email]);
    const batch = [
      { event: 'e', distinct_id: 'alice', properties: { $set: { plan: 'pro' } } },
      { event: 'e', distinct_id: 'bob', properties: { $set: { plan: 'free' } } },
      { event: '$identify', distinct_id: 'carol', properties: { $anon_distinct_id: 'carol-anon' } },
    ];
    expect((await sendJson(t, '/batch/', { api_key: t.keys.projectApiKey, batch })).status).toBe(200);
    await waitForQueuesIdle(t);
    const rows = await t.sql<{ distinct_id: string; uuid: string }>('SELECT d.distinct_id, p.uuid::text FROM person_distinct_id d JOIN person p ON p.id = d.person_id');
    for (const row of rows) uuids[row.distinct_id] = row.uuid;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) => t.http.post(`${base}/`, body);
  const patch = (id: number, body: Record<string, unknown>, action = '') => t.http.patch(`${base}/${id}/${action}`, body);
  const flagsVersion = async () => Number((await t.sql<{ v: string }>('SELECT flags_version AS v FROM project WHERE id = $1', [t.keys.projectId]))[0].v);
  const members = async (id: number) =>
    (await t.sql<{ uuid: string }>('SELECT p.uuid::text FROM cohort_person cp JOIN person p ON p.id = cp.person_id WHERE cp.cohort_id = $1 ORDER BY 1', [id])).map((r) => r.uuid);

  describe('dynamic cohorts', () => {
    it('creates a cohort with PostHog defaults (201) and serves it', async () => {
      const before = await flagsVersion();
      const filters = tree(person('plan', 'pro'), { key: 'email', type: 'person', value: '@acme.com', operator: 'icontains', negation: true });
      const res = await create({ name: 'Paying', description: 'Pro plan', filters });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Paying',
        description: 'Pro plan',
        groups: [],
        deleted: false,
        filters,
        query: null,
        is_calculating: false,
        created_by: { id: admin.id, uuid: admin.uuid, distinct_id: expect.any(String), first_name: expect.any(String), last_name: '', email: admin.email },
        created_at: expect.any(String),
        last_calculation: expect.any(String),
        errors_calculating: 0,
        count: null,
        is_static: false,
        experiment_set: [],
      });
      expect(await flagsVersion()).toBe(before + 1);
      const read = await t.http.get(`${base}/${res.body.id}/`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('accepts legacy groups and serves them with the equivalent property tree', async () => {
      const groups = [{ properties: [person('plan', 'pro')] }, { properties: [{ key: 'country', value: 'FR', type: 'person' }] }];
      const res = await create({ name: 'Legacy', groups });
      expect(res.status).toBe(201);
      expect(res.body.groups).toEqual(groups);
      expect(res.body.filters).toEqual({ properties: { type: 'OR', values: [{ type: 'AND', values: groups[0].properties }, { type: 'AND', values: groups[1].properties }] } });
      const definitions = await t.app.get(CohortsService).liveDefinitions(t.keys.projectId);
      expect(definitions).toContainEqual({ id: res.body.id, isStatic: false, filters: { groups } });
    });

    it('updates fields, records the change and bumps the flags version', async () => {
      const nested = await create({ name: 'Nested', filters: tree(person('country', 'FR')) });
      const cohort = await create({ name: 'Before', filters: tree(person('plan', 'pro')) });
      const before = await flagsVersion();
      const filters = { properties: { type: 'OR', values: [person('plan', 'team'), { key: 'id', type: 'cohort', value: nested.body.id }] } };
      const res = await patch(cohort.body.id, { name: 'After', description: 'd', filters });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...cohort.body, name: 'After', description: 'd', filters, last_calculation: expect.any(String) });
      expect(await flagsVersion()).toBe(before + 1);
      const log = await t.sql<{ activity: string; detail: { name: string; changes: Array<{ field: string }> | null } }>(
        `SELECT activity, detail FROM activity_log WHERE scope = 'Cohort' AND item_id = $1 ORDER BY created_at`,
        [String(cohort.body.id)],
      );
      expect(log.map((e) => [e.activity, e.detail.name, e.detail.changes?.map((c) => c.field) ?? null])).toEqual([
        ['created', 'Before', null],
        ['updated', 'After', ['name', 'description', 'filters']],
      ]);
    });

    it('replaces legacy groups when filters are sent, and the other way round', async () => {
      const cohort = await create({ name: 'Switch', groups: [{ properties: [person('plan', 'pro')] }] });
      const withTree = await patch(cohort.body.id, { filters: tree(person('plan', 'free')) });
      expect(withTree.body).toMatchObject({ groups: [], filters: tree(person('plan', 'free')) });
      const withGroups = await patch(cohort.body.id, { groups: [{ properties: [person('plan', 'team')] }] });
      expect(withGroups.body.filters).toEqual({ properties: { type: 'OR', values: [{ type: 'AND', values: [person('plan', 'team')] }] } });
    });

    it('soft-deletes: 200 with deleted true, then 404 and gone from the list', async () => {
      const cohort = await create({ name: 'Short lived', filters: tree(person('plan', 'pro')) });
      const before = await flagsVersion();
      const res = await patch(cohort.body.id, { deleted: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: cohort.body.id, deleted: true });
      expect(await flagsVersion()).toBe(before + 1);
      expect(await t.http.get(`${base}/${cohort.body.id}/`)).toMatchObject({ status: 404, body: NOT_FOUND });
      expect((await patch(cohort.body.id, { deleted: false })).status).toBe(404);
      const list = await t.http.get(`${base}/?limit=1000`);
      expect(list.body.results.map((c: { id: number }) => c.id)).not.toContain(cohort.body.id);
      expect((await t.app.get(CohortsService).liveDefinitions(t.keys.projectId)).map((d) => d.id)).not.toContain(cohort.body.id);
    });

    it('refuses hard deletes with 405', async () => {
      const cohort = await create({ name: 'Kept' });
      const refused = await t.http.delete(`${base}/${cohort.body.id}/`);
      expect([refused.status, refused.text, refused.headers.get('allow')]).toEqual([405, '', 'GET, PATCH']);
      expect((await t.http.get(`${base}/${cohort.body.id}/`)).status).toBe(200);
    });
  });

  describe('list', () => {
    it('pages live cohorts newest first with type, creator and search filters', async () => {
      const all = await t.http.get(`${base}/?limit=1000`);
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ count: all.body.results.length, next: null, previous: null, results: expect.any(Array) });
      const created = all.body.results.map((c: { created_at: string }) => c.created_at);
      expect([...created].sort().reverse()).toEqual(created);
      const first = await t.http.get(`${base}/?limit=2`);
      expect(first.body.results).toEqual(all.body.results.slice(0, 2));
      expect(first.body.next).toBe(`${t.baseUrl}${base}/?limit=2&offset=2`);
      const second = await t.http.get(`${base}/?limit=2&offset=2`);
      expect(second.body.results).toEqual(all.body.results.slice(2, 4));
      const names = async (query: string) => (await t.http.get(`${base}/?limit=1000&${query}`)).body.results.map((c: { name: string }) => c.name);
      expect(await names('search=PAYI')).toEqual(['Paying']);
      expect(await names('search=%25')).toEqual([]);
      expect(await names('type=static')).toEqual([]);
      expect((await names('type=dynamic')).length).toBe(all.body.count);
      expect((await names(`created_by_id=${admin.id}`)).length).toBe(all.body.count);
      expect(await names(`created_by_id=${admin.id + 1000}`)).toEqual([]);
    });
  });

  describe('static cohorts', () => {
    it('takes members by person uuid and by distinct id, ignoring unknown ones', async () => {
      const before = await flagsVersion();
      const res = await create({
        name: 'Beta testers',
        is_static: true,
        person_ids: [uuids.alice, '00000000-0000-4000-8000-000000000000', 'not-a-uuid'],
        distinct_ids: ['carol-anon', 'nobody'],
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'Beta testers', is_static: true, count: 2, filters: { properties: {} }, groups: [] });
      expect(res.body).not.toHaveProperty('person_ids');
      expect(await members(res.body.id)).toEqual([uuids.alice, uuids.carol].sort());
      expect(await flagsVersion()).toBe(before + 1);
      const definitions = await t.app.get(CohortsService).liveDefinitions(t.keys.projectId);
      expect(definitions).toContainEqual({ id: res.body.id, isStatic: true, filters: {} });
    });

    it('adds members on PATCH and through add_persons_to_static_cohort; removes one at a time', async () => {
      const cohort = await create({ name: 'Manual', is_static: true });
      expect(cohort.body.count).toBe(0);
      expect((await patch(cohort.body.id, { distinct_ids: ['bob'] })).body.count).toBe(1);
      let before = await flagsVersion();
      const added = await patch(cohort.body.id, { person_ids: [uuids.alice, uuids.bob, 'x'] }, 'add_persons_to_static_cohort/');
      expect(added).toMatchObject({ status: 200, body: { success: true } });
      expect(await flagsVersion()).toBe(before + 1);
      expect(await members(cohort.body.id)).toEqual([uuids.alice, uuids.bob].sort());
      before = await flagsVersion();
      const removed = await patch(cohort.body.id, { person_id: uuids.bob.toUpperCase() }, 'remove_person_from_static_cohort/');
      expect(removed).toMatchObject({ status: 200, body: { success: true } });
      expect(await flagsVersion()).toBe(before + 1);
      expect((await t.http.get(`${base}/${cohort.body.id}/`)).body.count).toBe(1);
      const log = await t.sql<{ activity: string }>(`SELECT activity FROM activity_log WHERE scope = 'Cohort' AND item_id = $1 ORDER BY created_at`, [String(cohort.body.id)]);
      expect(log.map((e) => e.activity)).toEqual(['created', 'updated', 'persons_added_manually', 'person_removed_manually']);
    });

    it.each<[string, Record<string, unknown>, number, Record<string, unknown>]>([
      ['person_ids missing', {}, 400, invalid('person_ids must be a list', null)],
      ['person_ids not a list', { person_ids: 'abc' }, 400, invalid('person_ids must be a list', null)],
      ['person_ids empty', { person_ids: [] }, 400, invalid('person_ids cannot be empty', null)],
      ['too many person_ids', { person_ids: Array.from({ length: 1001 }, () => 'x') }, 400, invalid('List size exceeds limit', null)],
      ['only unknown persons', { person_ids: ['00000000-0000-4000-8000-000000000000'] }, 400, invalid('No valid users to add to cohort', null)],
    ])('refuses to add with %s', async (_name, body, status, expected) => {
      const cohort = await create({ name: 'Add errors', is_static: true });
      const res = await patch(cohort.body.id, body, 'add_persons_to_static_cohort/');
      expect(res.status).toBe(status);
      expect(res.body).toEqual(expected);
    });

    it.each<[string, () => Record<string, unknown>, number, Record<string, unknown>]>([
      ['person_id missing', () => ({}), 400, invalid('person_id is required', null)],
      ['person_id a number', () => ({ person_id: 5 }), 400, invalid('person_id must be a string', null)],
      ['person_id not a uuid', () => ({ person_id: 'abc' }), 400, invalid('person_id must be a valid UUID', null)],
      ['an unknown person', () => ({ person_id: '00000000-0000-4000-8000-000000000000' }), 404, { ...NOT_FOUND, detail: "Person with this UUID does not exist in the cohort's team" }],
      ['a person not in the cohort', () => ({ person_id: uuids.bob }), 404, { ...NOT_FOUND, detail: 'Person is not part of the cohort' }],
    ])('refuses to remove with %s', async (_name, body, status, expected) => {
      const cohort = await create({ name: 'Remove errors', is_static: true, person_ids: [uuids.alice] });
      const res = await patch(cohort.body.id, body(), 'remove_person_from_static_cohort/');
      expect(res.status).toBe(status);
      expect(res.body).toEqual(expected);
    });

    it('reads a missing body as missing fields', async () => {
      const cohort = await create({ name: 'No body', is_static: true });
      for (const [action, detail] of [['add_persons_to_static_cohort', 'person_ids must be a list'], ['remove_person_from_static_cohort', 'person_id is required']]) {
        const res = await t.http.request('PATCH', `${base}/${cohort.body.id}/${action}/`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(invalid(detail, null));
      }
    });

    it('refuses member changes on dynamic cohorts', async () => {
      const cohort = await create({ name: 'Dynamic', filters: tree(person('plan', 'pro')) });
      expect((await patch(cohort.body.id, { person_ids: [uuids.alice] }, 'add_persons_to_static_cohort/')).body).toEqual(invalid('Can only add users to static cohorts', null));
      expect((await patch(cohort.body.id, { person_id: uuids.alice }, 'remove_person_from_static_cohort/')).body).toEqual(invalid('Can only remove users from static cohorts', null));
      expect((await patch(cohort.body.id, { person_ids: [uuids.alice] })).body).toEqual(invalid('person_ids can only be given for static cohorts.', 'person_ids'));
    });
  });

  describe('validation', () => {
    let existing: number;
    beforeAll(async () => {
      existing = (await create({ name: 'Referenced', filters: tree(person('plan', 'pro')) })).body.id;
    });

    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      ['filters as a string', { filters: 'x' }, invalid('Expected a dictionary of items.')],
      ['filters null', { filters: null }, invalid('This field may not be null.', 'filters', 'null')],
      ['filters without properties', { filters: { groups: [] } }, invalid("Must contain a 'properties' key with type and values")],
      ['properties not a group', { filters: { properties: person('plan', 'pro') } }, invalid('Filters are not valid (properties must be a group with type AND or OR and a list of values)')],
      ['group values not a list', { filters: { properties: { type: 'AND', values: {} } } }, invalid('Filters are not valid (values must be a list)')],
      ['a value that is no object', { filters: { properties: { type: 'AND', values: ['plan'] } } }, invalid('Filters are not valid (every value must be a property filter or a group)')],
      ['an unknown filter type', { filters: tree({ key: 'x', type: 'group', value: 1, operator: 'exact' }) }, invalid('Filters are not valid (cohorts can only use person, cohort and behavioral filters, not "group")')],
      ['a person filter without key', { filters: tree({ type: 'person', value: 1, operator: 'exact' }) }, invalid('Filters are not valid (every property filter needs a key)')],
      ['a person filter without value', { filters: tree({ key: 'plan', type: 'person', operator: 'exact' }) }, invalid('Missing required keys for person filter: value')],
      ['an unknown operator', { filters: tree(person('plan', 'pro', 'like')) }, invalid('Filters are not valid (invalid operator "like")')],
      ['a membership operator on a person', { filters: tree(person('plan', 'pro', 'in')) }, invalid('Filters are not valid (invalid operator "in")')],
      ['negation not a boolean', { filters: tree({ ...person('plan', 'pro'), negation: 'yes' }) }, invalid('Filters are not valid (negation must be a boolean)')],
      ['a cohort filter without an id', { filters: tree({ key: 'id', type: 'cohort', value: 'abc' }) }, invalid('Filters are not valid (a cohort filter is {"key": "id", "type": "cohort", "value": <cohort id>})')],
      ['a missing nested cohort', { filters: tree({ key: 'id', type: 'cohort', value: 999999 }) }, invalid('Invalid Cohort ID in filter')],
      ['groups as an object', { groups: {} }, invalid('Expected a list of items but got type "dict".', 'groups', 'not_a_list')],
      ['a group that is no object', { groups: ['x'] }, invalid('Groups are not valid (each group must be an object)', 'groups')],
      ['group properties not a list', { groups: [{ properties: { plan: 'pro' } }] }, invalid('Groups are not valid (properties must be a list)', 'groups')],
      ['a group property without value', { groups: [{ properties: [{ key: 'plan' }] }] }, invalid('Missing required keys for person filter: value', 'groups')],
      ['name too long', { name: 'n'.repeat(401) }, invalid('Ensure this field has no more than 400 characters.', 'name', 'max_length')],
      ['is_static not a boolean', { is_static: 'yes' }, invalid('Must be a valid boolean.', 'is_static')],
      ['a query', { query: { kind: 'HogQLQuery' } }, invalid('Query-based cohorts are not supported.', 'query')],
      ['person_ids on a dynamic cohort', { person_ids: ['x'] }, invalid('person_ids can only be given for static cohorts.', 'person_ids')],
      ['distinct_ids with a number', { is_static: true, distinct_ids: [1] }, invalid('Not a valid string.', 'distinct_ids')],
    ])('refuses %s with its exact body', async (_name, body, expected) => {
      const before = await t.sql('SELECT count(*)::int AS n FROM cohort');
      const res = await create({ name: 'Invalid', ...body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expected);
      expect(await t.sql('SELECT count(*)::int AS n FROM cohort')).toEqual(before);
    });

    it('accepts behavioural filters and nested cohorts', async () => {
      const res = await create({ name: 'Active', filters: tree(BEHAVIOURAL, { key: 'id', type: 'cohort', value: existing, negation: true }) });
      expect(res.status).toBe(201);
    });

    it('refuses a cohort that references itself or closes a loop', async () => {
      const a = await create({ name: 'A', filters: tree(person('plan', 'pro')) });
      const b = await create({ name: 'B', filters: tree({ key: 'id', type: 'cohort', value: a.body.id }) });
      const self = await patch(a.body.id, { filters: tree({ key: 'id', type: 'cohort', value: a.body.id }) });
      expect(self).toMatchObject({ status: 400, body: invalid('Cohorts cannot reference other cohorts in a loop.') });
      const loop = await patch(a.body.id, { filters: tree({ key: 'id', type: 'cohort', value: b.body.id }) });
      expect(loop).toMatchObject({ status: 400, body: invalid('Cohorts cannot reference other cohorts in a loop.') });
      await patch(b.body.id, { deleted: true });
      expect((await patch(a.body.id, { filters: tree({ key: 'id', type: 'cohort', value: b.body.id }) })).body).toEqual(invalid('Invalid Cohort ID in filter'));
    });
  });

  describe('with feature flags', () => {
    const flagOn = (cohortId: number, key: string) =>
      t.http.post(`/api/projects/${t.keys.projectId}/feature_flags/`, { key, filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100 }] } });

    it('refuses a flag that targets a behavioural cohort', async () => {
      const cohort = await create({ name: 'Visitors', filters: tree(BEHAVIOURAL) });
      const res = await flagOn(cohort.body.id, 'visitors-flag');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalid("Cohort 'Visitors' with filters on events cannot be used in feature flags.", 'filters', 'behavioral_cohort_found'));
    });

    it('refuses to make a cohort a flag uses behavioural, directly or through a nested cohort', async () => {
      const inner = await create({ name: 'Inner', filters: tree(person('plan', 'pro')) });
      const outer = await create({ name: 'Outer', filters: tree({ key: 'id', type: 'cohort', value: inner.body.id }) });
      const visitors = await create({ name: 'Site visitors', filters: tree(BEHAVIOURAL) });
      expect((await flagOn(outer.body.id, 'outer-flag')).status).toBe(201);
      const direct = await patch(inner.body.id, { filters: tree(BEHAVIOURAL) });
      expect(direct.status).toBe(400);
      expect(direct.body).toEqual(invalid('Behavioral filters cannot be added to cohorts used in feature flags.', 'filters', 'behavioral_cohort_found'));
      const nested = await patch(outer.body.id, { filters: tree({ key: 'id', type: 'cohort', value: visitors.body.id }) });
      expect(nested.body).toEqual(
        invalid("A cohort dependency (Site visitors) has filters based on events. These cohorts can't be used in feature flags.", 'filters', 'behavioral_cohort_found'),
      );
      expect((await patch(inner.body.id, { filters: tree(person('plan', 'team')) })).status).toBe(200);
    });

    it('refuses to delete a cohort a live flag depends on', async () => {
      const cohort = await create({ name: 'Needed', filters: tree(person('plan', 'pro')) });
      const flag = await flagOn(cohort.body.id, 'needs-cohort');
      const res = await patch(cohort.body.id, { deleted: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalid('This cohort is used in 1 feature flag(s): needs-cohort. Please remove the cohort from these feature flags before deleting it.', null));
      await t.http.patch(`/api/projects/${t.keys.projectId}/feature_flags/${flag.body.id}/`, { deleted: true });
      expect((await patch(cohort.body.id, { deleted: true })).status).toBe(200);
    });
  });

  describe('in flag evaluation', () => {
    const values = async (distinctId: string) => {
      const res = await sendJson(t, '/decide/?v=3', { token: t.keys.projectApiKey, distinct_id: distinctId });
      expect(res.status).toBe(200);
      return res.body.featureFlags as Record<string, unknown>;
    };
    const flag = (key: string, property: Record<string, unknown>) =>
      t.http.post(`/api/projects/${t.keys.projectId}/feature_flags/`, { key, filters: { groups: [{ properties: [property], rollout_percentage: 100 }] } });

    it('targets members of dynamic and static cohorts, in and not_in, and follows cohort writes at once', async () => {
      const pros = await create({ name: 'Pros', filters: tree(person('plan', 'pro')) });
      const listed = await create({ name: 'Listed', is_static: true, distinct_ids: ['bob'] });
      await flag('for-pros', { key: 'id', type: 'cohort', value: pros.body.id });
      await flag('not-for-pros', { key: 'id', type: 'cohort', value: pros.body.id, operator: 'not_in' });
      await flag('for-listed', { key: 'id', type: 'cohort', value: listed.body.id });
      expect(await values('alice')).toMatchObject({ 'for-pros': true, 'not-for-pros': false, 'for-listed': false });
      expect(await values('bob')).toMatchObject({ 'for-pros': false, 'not-for-pros': true, 'for-listed': true });
      await patch(pros.body.id, { filters: tree(person('plan', 'free')) });
      await patch(listed.body.id, { person_id: uuids.bob }, 'remove_person_from_static_cohort/');
      expect(await values('alice')).toMatchObject({ 'for-pros': false, 'not-for-pros': true, 'for-listed': false });
      expect(await values('bob')).toMatchObject({ 'for-pros': true, 'not-for-pros': false, 'for-listed': false });
    });
  });

  describe('auth and isolation', () => {
    it('needs a key, and cohort:write to write', async () => {
      const cohort = await create({ name: 'Guarded' });
      expect(await t.http.get(`${base}/`, { key: null })).toMatchObject({
        status: 401,
        body: { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null },
      });
      const reader = await t.app.get(ProvisioningService).createPersonalKey({ email: t.keys.email, label: 'r', scopes: ['cohort:read'], projectIds: null });
      expect((await t.http.get(`${base}/${cohort.body.id}/`, { key: reader })).status).toBe(200);
      const denied = { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'cohort:write'", attr: null };
      for (const res of [
        await t.http.post(`${base}/`, { name: 'x' }, { key: reader }),
        await t.http.patch(`${base}/${cohort.body.id}/`, { name: 'x' }, { key: reader }),
        await t.http.patch(`${base}/${cohort.body.id}/add_persons_to_static_cohort/`, { person_ids: [] }, { key: reader }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(denied);
      }
      const flagsOnly = await t.app.get(ProvisioningService).createPersonalKey({ email: t.keys.email, label: 'f', scopes: ['feature_flag:read'], projectIds: null });
      expect((await t.http.get(`${base}/`, { key: flagsOnly })).body).toEqual({ ...denied, detail: "API key missing required scope 'cohort:read'" });
    });

    it("answers 404 for another project's cohort", async () => {
      const project = await t.http.post('/api/projects/', { name: 'Other' });
      const other = await t.http.post(`/api/projects/${project.body.id}/cohorts/`, { name: 'Elsewhere', is_static: true });
      expect(other.status).toBe(201);
      expect(await t.http.get(`${base}/${other.body.id}/`)).toMatchObject({ status: 404, body: NOT_FOUND });
      expect((await patch(other.body.id, { name: 'x' })).status).toBe(404);
      expect((await patch(other.body.id, { person_ids: [uuids.alice] }, 'add_persons_to_static_cohort/')).status).toBe(404);
      expect((await patch(other.body.id, { person_id: uuids.alice }, 'remove_person_from_static_cohort/')).status).toBe(404);
      expect((await t.http.get(`${base}/not-a-number/`)).status).toBe(404);
      const foreignReference = await create({ name: 'Points elsewhere', filters: tree({ key: 'id', type: 'cohort', value: other.body.id }) });
      expect(foreignReference.body).toEqual(invalid('Invalid Cohort ID in filter'));
      const foreignMembers = await t.http.post(`/api/projects/${project.body.id}/cohorts/`, { name: 'Strangers', is_static: true, person_ids: [uuids.alice] });
      expect(foreignMembers.body.count).toBe(0);
    });
  });
});
