import { sendJson } from '../support/capture-client';
import { waitForQueuesIdle } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const ALPHA = {
  key: 'alpha-feature',
  filters: {
    groups: [{ properties: [], rollout_percentage: 20 }],
    multivariate: { variants: [{ key: 'first-variant', rollout_percentage: 50 }, { key: 'second-variant', rollout_percentage: 25 }, { key: 'third-variant', rollout_percentage: 25 }] },
  },
};

async function ingest(t: TestApp, batch: Array<Record<string, unknown>>) {
  expect((await sendJson(t, '/batch/', { api_key: t.keys.projectApiKey, batch })).status).toBe(200);
  await waitForQueuesIdle(t);
}

async function createFlag(t: TestApp, body: Record<string, unknown>) {
  const res = await t.http.post(`/api/projects/${t.keys.projectId}/feature_flags/`, body);
  expect(res.status).toBe(201);
  return res.body;
}

const groupIdentify = (type: string, key: string, set: Record<string, unknown> = {}) => ({
  event: '$groupidentify',
  distinct_id: 'groups',
  properties: { $group_type: type, $group_key: key, $group_set: set },
});

/** my_flags, evaluation_reasons and user_blast_radius with PostHog's own vectors. */
describe('Evaluation-backed flag endpoints', () => {
  describe('my_flags and evaluation_reasons', () => {
    let t: TestApp;
    let base: string;

    beforeAll(async () => {
      t = await startTestApp({ env: { ROLE: 'all' } });
      base = `/api/projects/${t.keys.projectId}/feature_flags`;
      await ingest(t, [
        groupIdentify('organization', 'org1234'),
        groupIdentify('company', 'c1'),
        { event: '$identify', distinct_id: '2', properties: { $anon_distinct_id: '1', $set: { 'beta-property': 'beta-value' } } },
      ]);
      await createFlag(t, { key: 'inactive-flag', active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
      await createFlag(t, { key: 'group-feature', filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 61 }] } });
      await createFlag(t, { key: 'beta-feature', filters: { groups: [{ properties: [{ key: 'beta-property', value: 'beta-value', type: 'person' }], rollout_percentage: 81 }] } });
      await createFlag(t, ALPHA);
    });
    afterAll(() => t.close());

    const reasons = async (query: string) => {
      const res = await t.http.get(`${base}/evaluation_reasons?${query}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const reason = (value: unknown, code: string, index: number | null) => ({ value, evaluation: { reason: code, condition_index: index } });

    it('explains every flag for an unknown distinct id, inactive ones as disabled', async () => {
      expect(await reasons('distinct_id=test')).toEqual({
        'alpha-feature': reason(false, 'out_of_rollout_bound', 0),
        'beta-feature': reason(false, 'no_condition_match', 0),
        'group-feature': reason(false, 'no_group_type', null),
        'inactive-flag': reason(false, 'disabled', null),
      });
    });

    it('uses the stored person of the distinct id', async () => {
      expect(await reasons('distinct_id=2')).toMatchObject({
        'alpha-feature': reason('first-variant', 'condition_match', 0),
        'beta-feature': reason(true, 'condition_match', 0),
      });
    });

    it('evaluates group flags for ?groups=', async () => {
      expect(await reasons(`distinct_id=org1234&groups=${encodeURIComponent('{"organization":"org1234"}')}`)).toMatchObject({
        'alpha-feature': reason(false, 'out_of_rollout_bound', 0),
        'group-feature': reason(true, 'condition_match', 0),
      });
    });

    it('requires distinct_id, and refuses groups that are not a JSON object', async () => {
      const missing = await t.http.get(`${base}/evaluation_reasons`);
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'distinct_id is required', attr: null });
      const badGroups = await t.http.get(`${base}/evaluation_reasons?distinct_id=a&groups=%5B1%5D`);
      expect(badGroups.status).toBe(400);
      expect(badGroups.body).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'groups must be a JSON object of group type to group key.',
        attr: 'groups',
      });
    });

    it('my_flags evaluates every live flag for the calling user, newest first', async () => {
      await t.sql(`UPDATE app_user SET distinct_id = 'distinct_id' WHERE email = $1`, [t.keys.email]);
      const red = await createFlag(t, { key: 'red_button' });
      const res = await t.http.get(`${base}/my_flags`);
      expect(res.status).toBe(200);
      expect(res.body.map((f: { feature_flag: { key: string }; value: unknown }) => [f.feature_flag.key, f.value])).toEqual([
        ['red_button', true],
        ['alpha-feature', 'third-variant'],
        ['beta-feature', false],
        ['group-feature', false],
        ['inactive-flag', false],
      ]);
      expect(res.body[0].feature_flag).toEqual({
        id: red.id,
        team_id: t.keys.projectId,
        name: '',
        key: 'red_button',
        filters: { groups: [{ properties: [], rollout_percentage: null }], payloads: {} },
        deleted: false,
        active: true,
        ensure_experience_continuity: false,
        has_encrypted_payloads: false,
        version: 1,
        evaluation_runtime: 'all',
        bucketing_identifier: 'distinct_id',
        evaluation_tags: [],
      });
      const grouped = await t.http.get(`${base}/my_flags?groups=${encodeURIComponent('{"organization":"org1234"}')}`);
      const groupFlag = grouped.body.find((f: { feature_flag: { key: string } }) => f.feature_flag.key === 'group-feature');
      expect(groupFlag.value).toBe(true); // org1234 falls inside the 61 % rollout (evaluation_reasons vector)
    });

    it('answers an empty project with []', async () => {
      const other = await startTestApp();
      try {
        const res = await other.http.get(`/api/projects/${other.keys.projectId}/feature_flags/my_flags`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
      } finally {
        await other.close();
      }
    });
  });

  describe('user_blast_radius', () => {
    let t: TestApp;
    let base: string;
    const radius = async (body: unknown) => {
      const res = await t.http.post(`${base}/user_blast_radius/`, body);
      return { status: res.status, body: res.body };
    };
    const person = (values: unknown[]) => ({ key: 'group', value: values, operator: 'exact', type: 'person' });

    beforeAll(async () => {
      t = await startTestApp({ env: { ROLE: 'all' } });
      base = `/api/projects/${t.keys.projectId}/feature_flags`;
    });
    afterAll(() => t.close());

    it('is {0, 0} with no persons', async () => {
      expect(await radius({ condition: { properties: [person(['0'])], rollout_percentage: 100 } })).toEqual({
        status: 200,
        body: { users_affected: 0, total_users: 0 },
      });
    });

    it('counts matching persons and ignores the rollout', async () => {
      await ingest(t, Array.from({ length: 10 }, (_, i) => ({ event: '$set', distinct_id: `p${i}`, properties: { $set: { group: String(i) } } })));
      expect((await radius({ condition: { properties: [person(['0', '1', '2', '3'])], rollout_percentage: 10 } })).body).toEqual({ users_affected: 4, total_users: 10 });
      expect((await radius({ condition: { properties: [], rollout_percentage: 100 } })).body).toEqual({ users_affected: 10, total_users: 10 });
      expect((await radius({ condition: { properties: [person(['none'])] } })).body).toEqual({ users_affected: 0, total_users: 10 });
    });

    it('counts cohort members', async () => {
      const cohort = await t.http.post(`/api/projects/${t.keys.projectId}/cohorts/`, {
        name: 'some groups',
        filters: { properties: { type: 'OR', values: [{ type: 'OR', values: [person(['1', '2', '3']), person(['none'])] }] } },
      });
      expect(cohort.status).toBe(201);
      const body = await radius({ condition: { properties: [{ key: 'id', value: cohort.body.id, type: 'cohort' }] } });
      expect(body.body).toEqual({ users_affected: 3, total_users: 10 });
    });

    it('counts groups of the requested type', async () => {
      await ingest(t, Array.from({ length: 10 }, (_, i) => groupIdentify('organization', `org${i}`, { industry: i })));
      await ingest(t, Array.from({ length: 5 }, (_, i) => groupIdentify('company', `co${i}`)));
      const industry = (values: number[]) => ({ key: 'industry', value: values, operator: 'exact', type: 'group', group_type_index: 0 });
      expect((await radius({ condition: { properties: [industry([0, 1, 2, 3])] }, group_type_index: 0 })).body).toEqual({ users_affected: 4, total_users: 10 });
      expect((await radius({ condition: { properties: [industry([0, 1, 2, 3, 4]), industry([2, 3, 4, 5, 6])] }, group_type_index: 0 })).body).toEqual({
        users_affected: 3,
        total_users: 10,
      });
      expect((await radius({ condition: { properties: [] }, group_type_index: 1 })).body).toEqual({ users_affected: 5, total_users: 5 });
    });

    it.each([
      ['no condition', {}, { detail: 'Missing condition for which to get blast radius', attr: null }],
      ['a property of another group type', { condition: { properties: [{ key: 'x', value: 1, type: 'group', group_type_index: 1 }] }, group_type_index: 0 }, { detail: 'Invalid group type index for feature flag condition.', attr: null }],
      ['a bad group_type_index', { condition: { properties: [] }, group_type_index: 'a' }, { detail: 'group_type_index must be an integer between 0 and 4.', attr: 'group_type_index' }],
      ['properties that are not filters', { condition: { properties: 'x' } }, { detail: 'condition.properties must be a list of property filters.', attr: 'condition' }],
    ])('refuses %s with 400', async (_name, body, error) => {
      expect(await radius(body)).toEqual({ status: 400, body: { type: 'validation_error', code: 'invalid_input', ...error } });
    });
  });
});
