import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { startTestApp, TestApp } from '../support/test-app';

/** Flag definitions for SDK local evaluation. */
describe('Local evaluation definitions', () => {
  let t: TestApp;
  let token: string;
  let base: string;
  const ids: Record<string, number> = {};
  const cohortIds: Record<string, number> = {};

  const createFlag = async (body: Record<string, unknown>) => {
    const res = await t.http.post(`${base}/`, body);
    expect(res.status).toBe(201);
    ids[body.key as string] = res.body.id;
  };
  const createCohort = async (name: string, body: Record<string, unknown>) => {
    const res = await t.http.post(`/api/projects/${t.keys.projectId}/cohorts/`, { name, ...body });
    expect(res.status).toBe(201);
    cohortIds[name] = res.body.id;
  };
  const person = (key: string, value: unknown) => ({ key, value, operator: 'exact', type: 'person' });

  beforeAll(async () => {
    t = await startTestApp();
    token = t.keys.projectApiKey;
    base = `/api/projects/${t.keys.projectId}/feature_flags`;
    await createCohort('inner', { filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [person('plan', 'pro')] }] } } });
    await createCohort('outer', {
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'id', value: cohortIds.inner, type: 'cohort' }, person('country', 'NL')] }] } },
    });
    await createCohort('listed', { is_static: true });
    await createFlag({ key: 'base', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    await createFlag({ key: 'middle', filters: { groups: [{ properties: [{ key: String(ids.base), type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] } });
    await createFlag({
      key: 'top',
      filters: {
        groups: [
          { properties: [{ key: String(ids.middle), type: 'flag', value: true, operator: 'flag_evaluates_to' }] },
          { properties: [{ key: 'id', value: cohortIds.outer, type: 'cohort' }] },
          { properties: [{ key: 'id', value: cohortIds.listed, type: 'cohort' }] },
        ],
      },
    });
    await createFlag({ key: 'off', active: false });
    await createFlag({ key: 'removed' });
    await t.http.patch(`${base}/${ids.removed}/`, { deleted: true });
  });
  afterAll(() => t.close());

  const definitions = (path = `/flags/definitions?token=${token}&send_cohorts`, headers: Record<string, string> = {}) =>
    t.http.get(path, { headers });

  it('serves every live flag (inactive ones too), the group type mapping and the referenced dynamic cohorts', async () => {
    const res = await definitions();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.flags.map((f: { key: string }) => f.key)).toEqual(['off', 'top', 'middle', 'base']);
    expect(res.body.flags[0]).toEqual({
      id: ids.off,
      team_id: t.keys.projectId,
      name: '',
      key: 'off',
      filters: { groups: [{ properties: [], rollout_percentage: null }], payloads: {} },
      deleted: false,
      active: false,
      ensure_experience_continuity: false,
      has_encrypted_payloads: false,
      version: 1,
      evaluation_runtime: 'all',
      bucketing_identifier: 'distinct_id',
      evaluation_tags: [],
    });
    expect(res.body.group_type_mapping).toEqual({});
    expect(res.body.cohorts).toEqual({
      [String(cohortIds.outer)]: {
        type: 'OR',
        values: [{ type: 'AND', values: [{ key: 'id', value: cohortIds.inner, type: 'cohort' }, person('country', 'NL')] }],
      },
      [String(cohortIds.inner)]: { type: 'AND', values: [{ type: 'AND', values: [person('plan', 'pro')] }] },
    });
  });

  it('rewrites flag dependencies to keys with the chain to evaluate, dependencies first', async () => {
    const res = await definitions();
    const top = res.body.flags.find((f: { key: string }) => f.key === 'top');
    expect(top.filters.groups[0].properties).toEqual([
      { key: 'middle', type: 'flag', value: true, operator: 'flag_evaluates_to', dependency_chain: ['base', 'middle'] },
    ]);
  });

  it('leaves cohorts out without send_cohorts', async () => {
    const res = await definitions(`/flags/definitions?token=${token}`);
    expect(res.body.cohorts).toEqual({});
    expect(res.body.flags).toHaveLength(4);
  });

  it.each(['/api/feature_flag/local_evaluation', '/api/feature_flag/local_evaluation/'])('serves the older path %s', async (path) => {
    const res = await definitions(`${path}?token=${token}&send_cohorts`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await definitions()).body);
  });

  it('serves the project path, and the current project when no token is given', async () => {
    const byProject = await definitions(`${base}/local_evaluation/?send_cohorts`);
    expect(byProject.status).toBe(200);
    expect(byProject.body).toEqual((await definitions()).body);
    expect((await definitions('/flags/definitions?send_cohorts')).body).toEqual(byProject.body);
  });

  it('answers 304 to an unchanged ETag, and a new ETag after a flag changes', async () => {
    const first = await definitions();
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    const unchanged = await definitions(undefined, { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    // The route's own caching (revalidate with the ETag) stands where other personal-key replies say no-store.
    expect([first.headers.get('cache-control'), unchanged.headers.get('cache-control')]).toEqual(['private, no-cache', 'private, no-cache']);
    for (const tag of [`W/${etag}`, `"other", ${etag}`, '*']) expect((await definitions(undefined, { 'if-none-match': tag })).status).toBe(304);
    expect((await definitions(undefined, { 'if-none-match': '"other"' })).status).toBe(200);
    await t.http.patch(`${base}/${ids.off}/`, { active: true });
    const changed = await definitions(undefined, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.flags[0]).toMatchObject({ key: 'off', active: true, version: 2 });
  });

  describe('auth', () => {
    it('needs a personal key even with ?token=', async () => {
      const res = await t.http.get(`/flags/definitions?token=${token}`, { key: null });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null });
    });

    it('refuses an unknown personal key and an unknown project key', async () => {
      const badKey = await t.http.get(`/flags/definitions?token=${token}`, { key: 'phx_notakeynotakeynotakey' });
      expect(badKey.status).toBe(401);
      expect(badKey.body).toMatchObject({ code: 'authentication_failed' });
      const badToken = await definitions('/flags/definitions?token=phc_unknownunknownunknownunknown');
      expect(badToken.status).toBe(401);
      expect(badToken.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    });

    it('needs feature_flag:read', async () => {
      const key = await t.app.get(ProvisioningService).createPersonalKey({ email: t.keys.email, label: 'narrow', scopes: ['person:read'], projectIds: null });
      const res = await t.http.get(`/flags/definitions?token=${token}`, { key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'feature_flag:read'", attr: null });
    });
  });
});
