import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { startTestApp, TestApp } from '../support/test-app';

const invalid = (detail: string, attr: string | null = 'filters', code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });

describe('Feature flags API', () => {
  let t: TestApp;
  let base: string;
  let admin: { id: number; uuid: string; email: string };

  beforeAll(async () => {
    t = await startTestApp();
    base = `/api/projects/${t.keys.projectId}/feature_flags`;
    const [row] = await t.sql<{ id: number; uuid: string; email: string }>('SELECT id, uuid, email FROM app_user WHERE email = $1', [t.keys.email]);
    admin = row;
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) => t.http.post(`${base}/`, body);
  const flagsVersion = async () => Number((await t.sql<{ v: string }>('SELECT flags_version AS v FROM project WHERE id = $1', [t.keys.projectId]))[0].v);

  it('creates a flag from a key alone with PostHog defaults (201)', async () => {
    const res = await create({ key: 'omega-feature' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: '',
      key: 'omega-feature',
      filters: { groups: [{ properties: [], rollout_percentage: null }], payloads: {} },
      deleted: false,
      active: true,
      created_by: { id: admin.id, uuid: admin.uuid, distinct_id: expect.any(String), first_name: expect.any(String), last_name: '', email: admin.email },
      created_at: expect.any(String),
      updated_at: expect.any(String),
      version: 1,
      last_modified_by: expect.objectContaining({ id: admin.id }),
      is_simple_flag: true,
      rollout_percentage: null,
      ensure_experience_continuity: false,
      experiment_set: [],
      surveys: [],
      features: [],
      rollback_conditions: null,
      performed_rollback: null,
      can_edit: true,
      tags: [],
      usage_dashboard: null,
      analytics_dashboards: [],
      has_enriched_analytics: false,
      is_remote_configuration: false,
      has_encrypted_payloads: false,
    });
    const read = await t.http.get(`${base}/${res.body.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('stores every writable field and computes the simple-flag fields', async () => {
    const filters = {
      groups: [{ properties: [], rollout_percentage: 65 }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 70 }, { key: 'b', name: 'B', rollout_percentage: 30 }] },
      payloads: { a: '{"color": "red"}', b: '[1]' },
    };
    const res = await create({
      key: 'full_flag-1',
      name: 'A description',
      filters,
      active: false,
      ensure_experience_continuity: true,
      rollback_conditions: [{ threshold: 5 }],
      performed_rollback: true,
      created_at: '2024-05-01T10:00:00Z',
      tags: ['beta'],
      rollout_percentage: 12,
      is_simple_flag: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      key: 'full_flag-1',
      name: 'A description',
      filters,
      active: false,
      ensure_experience_continuity: true,
      rollback_conditions: [{ threshold: 5 }],
      performed_rollback: true,
      created_at: '2024-05-01T10:00:00.000Z',
      tags: ['beta'],
      is_simple_flag: true,
      rollout_percentage: 65,
    });
    const grouped = await create({ key: 'group-flag', filters: { aggregation_group_type_index: 0, groups: [{ rollout_percentage: 65 }] } });
    expect(grouped.body).toMatchObject({ is_simple_flag: false, rollout_percentage: null });
  });

  describe('validation', () => {
    beforeAll(async () => {
      await create({ key: 'taken-key' });
      await t.sql(`INSERT INTO cohort (id, project_id, name, filters) VALUES
        (901, $1, 'Paying', '{"properties": {"type": "AND", "values": [{"type": "AND", "values": [{"key": "plan", "type": "person", "value": "pro"}]}]}}'),
        (902, $1, 'Active users', '{"properties": {"type": "OR", "values": [{"type": "AND", "values": [{"key": "$pageview", "type": "behavioral", "value": "performed_event"}]}]}}'),
        (903, $1, 'Wraps active', '{"properties": {"type": "AND", "values": [{"key": "id", "type": "cohort", "value": 902}]}}')`, [t.keys.projectId]);
    });

    const groups = (properties: unknown[]) => ({ groups: [{ properties, rollout_percentage: 50 }] });
    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      ['missing key', { name: 'x' }, invalid('This field is required.', 'key', 'required')],
      ['null key', { key: null }, invalid('This field may not be null.', 'key', 'null')],
      ['blank key', { key: '' }, invalid('This field may not be blank.', 'key', 'blank')],
      ['key over 400 characters', { key: 'k'.repeat(401) }, invalid('Ensure this field has no more than 400 characters.', 'key', 'max_length')],
      ['duplicate key', { key: 'taken-key' }, invalid('There is already a feature flag with this key.', 'key', 'unique')],
      ['key with a question mark', { key: 'foo?bar=baz' }, invalid('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key')],
      ['key with a slash', { key: 'foo/bar' }, invalid('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key')],
      ['key with a dot', { key: 'foo.bar' }, invalid('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key')],
      ['key with a space', { key: 'foo bar' }, invalid('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key')],
      ['filters as a string', { key: 'f1', filters: 'x' }, invalid('Expected a dictionary of items.', 'filters')],
      ['active as a string', { key: 'f1', active: 'yes' }, invalid('Must be a valid boolean.', 'active')],
      ['created_at not a date', { key: 'f1', created_at: 'yesterday' }, { type: 'validation_error', code: 'invalid_input', detail: expect.any(String), attr: 'created_at' }],
      ['variants not summing to 100', { key: 'f1', filters: { groups: [{}], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }] } } }, invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.')],
      ['condition rollout above 100', { key: 'f1', filters: { groups: [{ rollout_percentage: 120 }] } }, invalid('Invalid rollout percentage: must be a number from 0 to 100.')],
      ['variant rollout below 0', { key: 'f1', filters: { groups: [{}], multivariate: { variants: [{ key: 'a', rollout_percentage: 110 }, { key: 'b', rollout_percentage: -10 }] } } }, invalid('Invalid variant definitions: rollout percentages must be from 0 to 100.')],
      ['unknown variant override', { key: 'f1', filters: { groups: [{ variant: 'c' }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } } }, invalid('Filters are not valid (variant override does not exist)')],
      ['group property on a person flag', { key: 'f1', filters: groups([{ key: 'industry', value: 'x', type: 'group', group_type_index: 0 }]) }, invalid('Filters are not valid (can only use person, cohort, and flag properties)')],
      ['person property on a group flag', { key: 'f1', filters: { aggregation_group_type_index: 0, ...groups([{ key: 'email', value: 'x', type: 'person' }]) } }, invalid('Filters are not valid (can only use group properties)')],
      ['payloads as a list', { key: 'f1', filters: { groups: [{}], payloads: [] } }, invalid('Payloads must be passed as a dictionary')],
      ['payload not JSON', { key: 'f1', filters: { groups: [{}], payloads: { true: 'not json' } } }, invalid('Payload value is not valid JSON')],
      ['payload key of a missing variant', { key: 'f1', filters: { groups: [{}], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] }, payloads: { z: '1' } } }, invalid('Payload keys must match a variant key for multivariate flags')],
      ['boolean payload key other than true', { key: 'f1', filters: { groups: [{}], payloads: { false: '1' } } }, invalid("Payload keys must be 'true' for boolean flags")],
      ['regex with a number', { key: 'f1', filters: groups([{ key: 'age', value: 5, operator: 'regex', type: 'person' }]) }, invalid('Invalid value for operator regex: 5. This operator takes one value: send it as a string, e.g. "5".', 'filters', 'invalid_value')],
      ['unparseable date', { key: 'f1', filters: groups([{ key: 'd', value: 'soon', operator: 'is_date_after', type: 'person' }]) }, invalid('Invalid date value: soon', 'filters', 'invalid_date')],
      ['unknown operator', { key: 'f1', filters: groups([{ key: 'd', value: 'x', operator: 'like', type: 'person' }]) }, invalid('Invalid operator: like', 'filters', 'invalid_operator')],
      ['missing cohort', { key: 'f1', filters: groups([{ key: 'id', value: 4242, type: 'cohort' }]) }, invalid('Cohort with id 4242 does not exist', 'filters', 'cohort_does_not_exist')],
      ['behavioural cohort', { key: 'f1', filters: groups([{ key: 'id', value: 902, type: 'cohort' }]) }, invalid("Cohort 'Active users' with filters on events cannot be used in feature flags.", 'filters', 'behavioral_cohort_found')],
      ['cohort nesting a behavioural one', { key: 'f1', filters: groups([{ key: 'id', value: 903, type: 'cohort' }]) }, invalid("Cohort 'Wraps active' with filters on events cannot be used in feature flags.", 'filters', 'behavioral_cohort_found')],
      ['dependency on a missing flag', { key: 'f1', filters: groups([{ key: '99999', value: true, operator: 'flag_evaluates_to', type: 'flag' }]) }, invalid('Flag dependency references a flag that does not exist: 99999.')],
    ])('refuses %s with its exact body', async (_name, body, expected) => {
      const before = await t.sql('SELECT count(*)::int AS n FROM feature_flag');
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expected);
      expect(await t.sql('SELECT count(*)::int AS n FROM feature_flag')).toEqual(before);
    });

    it("refuses a body that is not an object with DRF's non-field error, before the key it lacks", async () => {
      const raw = (text: string) => t.http.post(`${base}/`, undefined, { raw: text, headers: { 'content-type': 'application/json' } });
      for (const [text, type] of [['[{"key": "f1"}]', 'list'], ['"f1"', 'str'], ['7', 'int'], ['true', 'bool']]) {
        expect((await raw(text)).body).toEqual(invalid(`Invalid data. Expected a dictionary, but got ${type}.`, null));
      }
      expect((await raw('null')).body).toEqual(invalid('No data provided', null, 'null'));
      const patched = await t.http.patch(`${base}/${(await create({ key: 'body-shape' })).body.id}/`, ['x']);
      expect([patched.status, patched.body.detail]).toEqual([400, 'Invalid data. Expected a dictionary, but got list.']);
    });

    it('accepts a property cohort and a dependency on a live flag', async () => {
      const dependency = await create({ key: 'dependency-target' });
      const res = await create({
        key: 'uses-cohort',
        filters: groups([
          { key: 'id', value: 901, type: 'cohort' },
          { key: String(dependency.body.id), value: true, operator: 'flag_evaluates_to', type: 'flag' },
        ]),
      });
      expect(res.status).toBe(201);
    });

    it('refuses a dependency cycle on update', async () => {
      const a = await create({ key: 'cycle-a' });
      const b = await create({ key: 'cycle-b', filters: groups([{ key: String(a.body.id), value: true, operator: 'flag_evaluates_to', type: 'flag' }]) });
      const res = await t.http.patch(`${base}/${a.body.id}/`, {
        filters: groups([{ key: String(b.body.id), value: true, operator: 'flag_evaluates_to', type: 'flag' }]),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalid('Circular dependency detected: cycle-a → cycle-b → cycle-a'));
    });

    it('checks key rules on update too', async () => {
      const flag = await create({ key: 'renamable' });
      expect((await t.http.patch(`${base}/${flag.body.id}/`, { key: 'taken-key' })).body).toEqual(
        invalid('There is already a feature flag with this key.', 'key', 'unique'),
      );
      expect((await t.http.patch(`${base}/${flag.body.id}/`, { key: 'bad key' })).body.code).toBe('invalid_key');
      expect((await t.http.patch(`${base}/${flag.body.id}/`, { name: null })).body).toEqual(invalid('This field may not be null.', 'name', 'null'));
      const renamed = await t.http.patch(`${base}/${flag.body.id}/`, { key: 'renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.key).toBe('renamed');
    });
  });

  describe('soft delete', () => {
    it('hides a deleted flag from the list, keeps its record and frees its key', async () => {
      const flag = await create({ key: 'short-lived' });
      const deleted = await t.http.patch(`${base}/${flag.body.id}/`, { deleted: true });
      expect(deleted.status).toBe(200);
      expect(deleted.body.deleted).toBe(true);
      const list = await t.http.get(`${base}/?limit=1000`);
      expect(list.body.results.map((f: { key: string }) => f.key)).not.toContain('short-lived');
      expect((await t.http.get(`${base}/${flag.body.id}/`)).body).toMatchObject({ key: 'short-lived', deleted: true });
      const again = await create({ key: 'short-lived' });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(flag.body.id);
      // The old one cannot come back while the key is in use again.
      const undelete = await t.http.patch(`${base}/${flag.body.id}/`, { deleted: false });
      expect(undelete.status).toBe(400);
      expect(undelete.body).toEqual(invalid('There is already a feature flag with this key.', 'key', 'unique'));
    });

    it('answers DELETE with 405, an empty body and Allow: GET, PATCH, changing nothing', async () => {
      const flag = await create({ key: 'undeletable' });
      const versionBefore = await flagsVersion();
      const res = await t.http.delete(`${base}/${flag.body.id}/`);
      expect(res.status).toBe(405);
      expect(res.text).toBe('');
      expect(res.headers.get('allow')).toBe('GET, PATCH');
      expect((await t.http.get(`${base}/${flag.body.id}/`)).body).toEqual(flag.body);
      expect(await flagsVersion()).toBe(versionBefore);
    });
  });

  describe('updates', () => {
    it('leaves filters alone when a PATCH sends filters without groups', async () => {
      const flag = await create({ key: 'keeps-filters', filters: { groups: [{ rollout_percentage: 30 }] } });
      const res = await t.http.patch(`${base}/${flag.body.id}/`, { filters: { payloads: {} }, name: 'renamed' });
      expect(res.body.filters).toEqual({ groups: [{ rollout_percentage: 30 }] });
      expect(res.body.name).toBe('renamed');
      expect(res.body.version).toBe(2);
    });

    it('resets performed_rollback when a write activates the flag', async () => {
      const flag = await create({ key: 'rolled-back', active: false, performed_rollback: true });
      const res = await t.http.patch(`${base}/${flag.body.id}/`, { active: true });
      expect(res.body).toMatchObject({ active: true, performed_rollback: false });
    });

    it('bumps the project flag version on every write', async () => {
      const before = await flagsVersion();
      const flag = await create({ key: 'versioned' });
      await t.http.patch(`${base}/${flag.body.id}/`, { name: 'v2' });
      expect(await flagsVersion()).toBe(before + 2);
    });

    it('answers 409 to a PATCH carrying a stale version', async () => {
      const flag = await create({ key: 'optimistic' });
      await t.http.patch(`${base}/${flag.body.id}/`, { name: 'first', version: 1 });
      const stale = await t.http.patch(`${base}/${flag.body.id}/`, { name: 'second', version: 1 });
      expect(stale.status).toBe(409);
      expect(stale.body).toEqual({
        type: 'invalid_request',
        code: 'conflict',
        detail: `The feature flag was updated by ${admin.email} since you started editing it. Please refresh and try again.`,
        attr: null,
      });
      expect((await t.http.get(`${base}/${flag.body.id}/`)).body.name).toBe('first');
    });

    it('applies 20 concurrent PATCHes one after another, and the activity log agrees', async () => {
      const flag = await create({ key: 'contended', name: 'start' });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t.http.patch(`${base}/${flag.body.id}/`, { name: `name-${i}`, tags: [`t${i}`] })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      const stored = (await t.http.get(`${base}/${flag.body.id}/`)).body;
      expect(stored.version).toBe(21);
      const log = await t.http.get(`${base}/${flag.body.id}/activity/?limit=100`);
      const updates = [...log.body.results].reverse().filter((e: { activity: string }) => e.activity === 'updated');
      expect(updates).toHaveLength(20);
      let name = 'start';
      for (const entry of updates) {
        const change = entry.detail.changes.find((c: { field: string }) => c.field === 'name');
        expect(change.before).toBe(name);
        name = change.after;
      }
      expect(stored.name).toBe(name);
      expect(stored.tags).toEqual([`t${name.split('-')[1]}`]);
    });
  });

  describe('activity', () => {
    it('records create, update and soft delete in PostHog shape, newest first', async () => {
      const flag = await create({ key: 'logged', name: 'original name' });
      const filters = { groups: [{ properties: [{ key: 'email', type: 'person', value: '@posthog.com', operator: 'icontains' }], rollout_percentage: 65 }] };
      await t.http.patch(`${base}/${flag.body.id}/`, { name: 'Updated name', filters });
      await t.http.patch(`${base}/${flag.body.id}/`, { name: 'Updated name' }); // no change: no entry
      await t.http.patch(`${base}/${flag.body.id}/`, { deleted: true });
      const res = await t.http.get(`${base}/${flag.body.id}/activity/`);
      expect(res.status).toBe(200);
      const user = { first_name: expect.any(String), email: admin.email };
      const entry = (activity: string, changes: unknown) => ({
        id: expect.any(String),
        user,
        activity,
        created_at: expect.any(String),
        scope: 'FeatureFlag',
        item_id: String(flag.body.id),
        detail: { changes, trigger: null, name: 'logged', short_id: null, type: null },
      });
      expect(res.body).toEqual({
        results: [
          entry('updated', [{ type: 'FeatureFlag', action: 'changed', field: 'deleted', before: false, after: true }]),
          entry('updated', [
            { type: 'FeatureFlag', action: 'changed', field: 'name', before: 'original name', after: 'Updated name' },
            { type: 'FeatureFlag', action: 'changed', field: 'filters', before: {}, after: filters },
          ]),
          entry('created', null),
        ],
        next: null,
        previous: null,
        total_count: 3,
      });
    });

    it('pages the project activity ten at a time', async () => {
      const other = await startTestApp();
      try {
        const otherBase = `/api/projects/${other.keys.projectId}/feature_flags`;
        for (let i = 0; i < 15; i++) await other.http.post(`${otherBase}/`, { key: `flag-${i}`, name: String(i) });
        const first = await other.http.get(`${otherBase}/activity/`);
        expect(first.body.total_count).toBe(15);
        expect(first.body.results.map((e: { detail: { name: string } }) => e.detail.name)).toEqual(
          Array.from({ length: 10 }, (_, i) => `flag-${14 - i}`),
        );
        expect(first.body.next).toBe(`${other.baseUrl}${otherBase}/activity/?page=2&limit=10`);
        const second = await other.http.get(first.body.next.slice(other.baseUrl.length));
        expect(second.body.results.map((e: { detail: { name: string } }) => e.detail.name)).toEqual(['flag-4', 'flag-3', 'flag-2', 'flag-1', 'flag-0']);
        expect(second.body.next).toBeNull();
        expect(second.body.previous).toBe(`${other.baseUrl}${otherBase}/activity/?page=1&limit=10`);
      } finally {
        await other.close();
      }
    });

    it('answers 404 for the activity of a flag of another project', async () => {
      expect((await t.http.get(`${base}/999999/activity/`)).status).toBe(404);
    });
  });

  describe('list', () => {
    let memberId: number;
    beforeAll(async () => {
      const provisioning = t.app.get(ProvisioningService);
      const member = await provisioning.createUser({ email: 'lister@example.com', level: MembershipLevel.Member });
      memberId = member.id;
      const key = await provisioning.createPersonalKey({ email: 'lister@example.com', label: 'l', scopes: ['*'], projectIds: null });
      await t.http.post(`${base}/`, { key: 'list-multi', name: 'Checkout 100%_off', filters: { groups: [{}], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } } }, { key });
      await t.http.post(`${base}/`, { key: 'list-off', active: false }, { key });
    });

    const keys = async (query: string) => (await t.http.get(`${base}/?limit=1000&${query}`)).body.results.map((f: { key: string }) => f.key);

    it('filters by active, creator, search and type', async () => {
      expect(await keys(`created_by_id=${memberId}`)).toEqual(['list-off', 'list-multi']);
      expect(await keys(`created_by_id=${memberId}&active=false`)).toEqual(['list-off']);
      expect(await keys(`created_by_id=${memberId}&active=true`)).toEqual(['list-multi']);
      expect(await keys('search=CHECKOUT')).toEqual(['list-multi']);
      expect(await keys('search=100%25_')).toEqual(['list-multi']);
      // % and _ are literal characters, not wildcards.
      expect(await keys('search=c%25t')).toEqual([]);
      expect(await keys('search=checkou_')).toEqual([]);
      expect(await keys(`created_by_id=${memberId}&type=multivariant`)).toEqual(['list-multi']);
      expect(await keys(`created_by_id=${memberId}&type=boolean`)).toEqual(['list-off']);
      expect(await keys('type=experiment')).toEqual([]);
      expect(await keys(`created_by_id=${memberId}&type=unknown`)).toEqual(['list-off', 'list-multi']);
    });

    it('pages newest first with limit and offset, visiting every flag once', async () => {
      const all = await t.http.get(`${base}/?limit=1000`);
      const seen: number[] = [];
      let next: string | null = `${base}/?limit=7`;
      while (next) {
        const page: any = await t.http.get(next.startsWith('http') ? next.slice(t.baseUrl.length) : next);
        expect(page.body.count).toBe(all.body.count);
        seen.push(...page.body.results.map((f: { id: number }) => f.id));
        next = page.body.next;
      }
      expect(seen).toEqual(all.body.results.map((f: { id: number }) => f.id));
      const created = all.body.results.map((f: { created_at: string }) => f.created_at);
      expect([...created].sort().reverse()).toEqual(created);
    });
  });

  describe('auth', () => {
    it('needs feature_flag:write to write and keeps projects apart', async () => {
      const provisioning = t.app.get(ProvisioningService);
      const reader = await provisioning.createPersonalKey({ email: t.keys.email, label: 'r', scopes: ['feature_flag:read'], projectIds: null });
      expect((await t.http.get(`${base}/`, { key: reader })).status).toBe(200);
      const denied = await t.http.post(`${base}/`, { key: 'nope' }, { key: reader });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'feature_flag:write'", attr: null });
      const project = await t.http.post('/api/projects/', { name: 'Other' });
      const otherFlag = await t.http.post(`/api/projects/${project.body.id}/feature_flags/`, { key: 'elsewhere' });
      expect((await t.http.get(`${base}/${otherFlag.body.id}/`)).status).toBe(404);
      expect((await t.http.patch(`${base}/${otherFlag.body.id}/`, { name: 'x' })).status).toBe(404);
      expect((await t.http.get(`${base}/not-a-number/`)).status).toBe(404);
      expect((await t.http.get(`/api/projects/@current/feature_flags/${otherFlag.body.id}/`)).status).toBe(404);
    });
  });
});
