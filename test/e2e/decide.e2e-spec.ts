import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { sendJson, sendRaw } from '../support/capture-client';
import { ingestBatch, waitForRows } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { DataSource } from 'typeorm';
import { EVALUATION_APPLICATION_NAME, EvaluationReadPool } from '../../src/modules/decide/evaluation-read-pool';

const CONFIG_BLOCK = {
  config: { enable_collect_everything: true },
  editorParams: {},
  toolbarParams: {},
  isAuthenticated: false,
  supportedCompression: ['gzip', 'gzip-js', 'lz64'],
  sessionRecording: false,
  defaultIdentifiedOnly: true,
  siteApps: [],
};
const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);

/** `/decide/` and `/flags/`, through real ingestion. */
describe('Decide and flags', () => {
  let t: TestApp;
  let token: string;
  const ids: Record<string, number> = {};

  const decide = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    sendJson(t, path, { token, ...body }, headers);
  const createFlag = async (body: Record<string, unknown>) => {
    const res = await t.http.post(`/api/projects/${t.keys.projectId}/feature_flags/`, body);
    expect(res.status).toBe(201);
    ids[body.key as string] = res.body.id;
    return res.body;
  };
  const ingest = (batch: Array<Record<string, unknown>>) => ingestBatch(t, token, batch);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    token = t.keys.projectApiKey;
    await createFlag({ key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"a":1}' } } });
    await createFlag({ key: 'nobody', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
    await createFlag({
      key: 'alpha-feature',
      filters: {
        groups: [{ properties: [], rollout_percentage: 20 }],
        multivariate: { variants: [{ key: 'first-variant', rollout_percentage: 50 }, { key: 'second-variant', rollout_percentage: 25 }, { key: 'third-variant', rollout_percentage: 25 }] },
        payloads: { 'third-variant': '"three"' },
      },
    });
    await createFlag({ key: 'paying', filters: { groups: [{ properties: [{ key: 'plan', value: 'PRO', operator: 'exact', type: 'person' }], rollout_percentage: 100 }] } });
    await createFlag({ key: 'switched-off', active: false, filters: { groups: [{ rollout_percentage: 100 }] } });
    const gone = await createFlag({ key: 'gone', filters: { groups: [{ rollout_percentage: 100 }] } });
    await t.http.patch(`/api/projects/${t.keys.projectId}/feature_flags/${gone.id}/`, { deleted: true });
    await ingest([{ event: '$identify', distinct_id: 'distinct_id', properties: { $set: { plan: 'pro' } } }]);
  });
  afterAll(() => t.close());

  const ALL_VALUES = { everyone: true, nobody: false, 'alpha-feature': 'third-variant', paying: true };

  describe('reply versions', () => {
    it('/decide/ without v (v1) lists the keys of enabled flags beside the config', async () => {
      const res = await decide('/decide/', { distinct_id: 'distinct_id' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject(CONFIG_BLOCK);
      expect(new Set(res.body.featureFlags)).toEqual(new Set(['everyone', 'alpha-feature', 'paying']));
      expect(res.body.featureFlags).toHaveLength(3);
    });

    it('/decide/?v=2 maps enabled keys to true or the variant', async () => {
      const res = await decide('/decide/?v=2', { distinct_id: 'distinct_id' });
      expect(res.body.featureFlags).toEqual({ everyone: true, 'alpha-feature': 'third-variant', paying: true });
      expect(res.body).toMatchObject(CONFIG_BLOCK);
    });

    it('/decide/?v=3 gives every evaluated value and the JSON-text payloads of enabled flags', async () => {
      const res = await decide('/decide/?v=3', { distinct_id: 'distinct_id' });
      expect(res.body).toMatchObject({
        ...CONFIG_BLOCK,
        featureFlags: ALL_VALUES,
        featureFlagPayloads: { everyone: '{"a":1}', 'alpha-feature': '"three"' },
        errorsWhileComputingFlags: false,
      });
      expect(Object.keys(res.body.featureFlags).sort()).toEqual(Object.keys(ALL_VALUES).sort());
    });

    it('/decide/?v=4 and /flags/?v=2 give flag details with reasons and metadata', async () => {
      for (const path of ['/decide/?v=4', '/flags/?v=2']) {
        const res = await decide(path, { distinct_id: 'distinct_id' });
        expect(res.status).toBe(200);
        expect(res.body.errorsWhileComputingFlags).toBe(false);
        expect(res.body.requestId).toEqual(UUID);
        // PostHog's evaluatedAt: when the flags were evaluated, in Unix milliseconds.
        expect(Math.abs(res.body.evaluatedAt - Date.now())).toBeLessThan(60_000);
        expect(Object.keys(res.body).slice(-2)).toEqual(['requestId', 'evaluatedAt']);
        expect(res.body.flags).toEqual({
          everyone: {
            key: 'everyone',
            enabled: true,
            variant: null,
            reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
            metadata: { id: ids.everyone, version: 1, description: null, payload: '{"a":1}', has_experiment: false },
          },
          nobody: {
            key: 'nobody',
            enabled: false,
            variant: null,
            reason: { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' },
            metadata: { id: ids.nobody, version: 1, description: null, payload: null, has_experiment: false },
          },
          'alpha-feature': {
            key: 'alpha-feature',
            enabled: true,
            variant: 'third-variant',
            reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
            metadata: { id: ids['alpha-feature'], version: 1, description: null, payload: '"three"', has_experiment: false },
          },
          paying: expect.objectContaining({ enabled: true, variant: null }),
        });
      }
    });

    it('/flags/?v=2 carries no config unless config=true; without v and config it is v2 with the config', async () => {
      const plain = await decide('/flags/?v=2', { distinct_id: 'x' });
      expect(plain.body.config).toBeUndefined();
      const withConfig = await decide('/flags/?v=2&config=true', { distinct_id: 'x' });
      expect(withConfig.body).toMatchObject(CONFIG_BLOCK);
      const bare = await decide('/flags/', { distinct_id: 'x' });
      expect(bare.body).toMatchObject(CONFIG_BLOCK);
      expect(bare.body.flags).toBeDefined();
    });

    it('/flags/?v=1 is the legacy shape with the request id', async () => {
      const res = await decide('/flags/?v=1', { distinct_id: 'distinct_id' });
      expect(res.body).toEqual({
        featureFlags: ALL_VALUES,
        featureFlagPayloads: { everyone: '{"a":1}', 'alpha-feature': '"three"' },
        errorsWhileComputingFlags: false,
        requestId: UUID,
        evaluatedAt: expect.any(Number),
      });
    });

    it('distinct_id_0 falls outside the 20% rollout (PostHog\'s my_flags vector)', async () => {
      const res = await decide('/flags/?v=2', { distinct_id: 'distinct_id_0' });
      expect(res.body.flags['alpha-feature']).toMatchObject({ enabled: false, reason: { code: 'out_of_rollout_bound' } });
    });

    it('answers "flags": {} when nothing is evaluated: disable_flags, or flag keys that do not exist', async () => {
      const disabled = await decide('/flags/?v=2', { distinct_id: 'x', disable_flags: true });
      expect(disabled.body).toEqual({ flags: {}, errorsWhileComputingFlags: false, requestId: UUID, evaluatedAt: expect.any(Number) });
      const unknown = await decide('/flags/?v=2', { distinct_id: 'x', flag_keys_to_evaluate: ['missing'] });
      expect(unknown.body.flags).toEqual({});
    });

    it('evaluates only flag_keys_to_evaluate (server SDKs) or flag_keys (browser)', async () => {
      const node = await decide('/flags/?v=2', { distinct_id: 'x', flag_keys_to_evaluate: ['everyone'] });
      expect(Object.keys(node.body.flags)).toEqual(['everyone']);
      const browser = await decide('/flags/?v=2', { distinct_id: 'x', flag_keys: ['nobody'] });
      expect(Object.keys(browser.body.flags)).toEqual(['nobody']);
    });
  });

  describe('remote config', () => {
    it('tells posthog-js the project has flags, so it asks for them', async () => {
      const res = await t.http.get(`/array/${token}/config`, { key: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ token, hasFeatureFlags: true, supportedCompression: ['gzip', 'gzip-js', 'lz64'] });
      const script = await t.http.get(`/array/${token}/config.js`, { key: null });
      expect(script.text).toContain('"hasFeatureFlags":true');
    });

    it('says no flags for a project without active ones', async () => {
      const other = await startTestApp();
      try {
        const res = await other.http.get(`/array/${other.keys.projectApiKey}/config`, { key: null });
        expect(res.body.hasFeatureFlags).toBe(false);
      } finally {
        await other.close();
      }
    });
  });

  describe('person properties', () => {
    it('uses the stored person of the distinct id (exact is case-insensitive)', async () => {
      const res = await decide('/flags/?v=2', { distinct_id: 'distinct_id', flag_keys_to_evaluate: ['paying'] });
      expect(res.body.flags.paying).toMatchObject({ enabled: true, reason: { code: 'condition_match', condition_index: 0 } });
    });

    it('request person_properties override the stored ones', async () => {
      const res = await decide('/flags/?v=2', { distinct_id: 'distinct_id', person_properties: { plan: 'free' } });
      expect(res.body.flags.paying).toMatchObject({ enabled: false, reason: { code: 'no_condition_match' } });
    });

    it('an unknown person matches on request properties alone', async () => {
      const res = await decide('/flags/?v=2', { distinct_id: 'stranger', person_properties: { plan: 'pro' } });
      expect(res.body.flags.paying.enabled).toBe(true);
      const without = await decide('/flags/?v=2', { distinct_id: 'stranger' });
      expect(without.body.flags.paying.enabled).toBe(false);
    });

    it('a person property written after the first request is seen on the next one', async () => {
      expect((await decide('/flags/?v=2', { distinct_id: 'late' })).body.flags.paying.enabled).toBe(false);
      await ingest([{ event: '$set', distinct_id: 'late', properties: { $set: { plan: 'pro' } } }]);
      expect((await decide('/flags/?v=2', { distinct_id: 'late' })).body.flags.paying.enabled).toBe(true);
    });
  });

  describe('encodings and methods', () => {
    const body = () => JSON.stringify({ token, distinct_id: 'distinct_id' });
    const b64 = () => Buffer.from(body()).toString('base64');
    const cases: Array<[string, () => ReturnType<typeof sendRaw>]> = [
      ['plain JSON', () => sendRaw(t, '/decide/?v=2', body(), { 'content-type': 'application/json' })],
      ['gzip with Content-Encoding', () => sendRaw(t, '/decide/?v=2', gzipSync(body()), { 'content-type': 'application/json', 'content-encoding': 'gzip' })],
      ['gzip as text/plain with no hint (posthog-js)', () => sendRaw(t, '/decide/?v=2', gzipSync(body()), { 'content-type': 'text/plain' })],
      ['gzip with ?compression=gzip-js', () => sendRaw(t, '/decide/?v=2&compression=gzip-js', gzipSync(body()), { 'content-type': 'text/plain' })],
      ['a data=<base64> form', () => sendRaw(t, '/decide/?v=2', `data=${encodeURIComponent(b64())}`, { 'content-type': 'application/x-www-form-urlencoded' })],
      ['lz64 with ?compression=lz64', () => sendRaw(t, '/decide/?v=2&compression=lz64', `data=${encodeURIComponent(LZString.compressToBase64(body()))}`, { 'content-type': 'application/x-www-form-urlencoded' })],
      ['GET with ?data=<base64>', () => sendRaw(t, `/decide/?v=2&data=${encodeURIComponent(b64())}`, undefined, {}, 'GET')],
      ['JSON as an upper-case type with a charset', () => sendRaw(t, '/decide/?v=2', body(), { 'content-type': 'Application/JSON; charset=utf-8' })],
      ['JSON without a content type', () => sendRaw(t, '/decide/?v=2', Buffer.from(body()), {})],
    ];
    it.each(cases)('decodes %s', async (_name, send) => {
      const res = await send();
      expect(res.status).toBe(200);
      expect(res.body.featureFlags).toEqual({ everyone: true, 'alpha-feature': 'third-variant', paying: true });
    });

    it("reads Python's NaN and Infinity as null (posthog-python writes them for such floats)", async () => {
      const text = `{"token": "${token}", "distinct_id": "distinct_id", "person_properties": {"score": NaN, "max": Infinity, "min": -Infinity, "label": "NaN"}}`;
      const res = await sendRaw(t, '/decide/?v=2', text, { 'content-type': 'application/json' });
      expect(res.status).toBe(200);
      expect(res.body.featureFlags).toEqual({ everyone: true, 'alpha-feature': 'third-variant', paying: true });
    });

    it('takes the key from api_key or $token too, and the distinct id from $distinct_id; numbers are stringified', async () => {
      const a = await sendJson(t, '/decide/?v=2', { api_key: token, $distinct_id: 'distinct_id' });
      expect(a.body.featureFlags.paying).toBe(true);
      const b = await sendJson(t, '/flags/?v=2', { $token: token, distinct_id: 42 });
      expect(b.status).toBe(200);
    });

    it('answers a GET without ?data= with an empty reply in the shape v asks for, and HEAD with an empty body, before any key check', async () => {
      const minimal = { errorsWhileComputingFlags: false, requestId: UUID, evaluatedAt: expect.any(Number), supportedCompression: ['gzip', 'gzip-js'], config: { enable_collect_everything: true }, toolbarParams: {}, isAuthenticated: false, sessionRecording: false };
      for (const path of ['/flags/', '/decide/', '/flags/?v=1']) {
        const res = await sendRaw(t, path, undefined, { origin: 'https://app.example.com' }, 'GET');
        expect([path, res.status, res.body]).toEqual([path, 200, { ...minimal, featureFlags: {}, featureFlagPayloads: {} }]);
        expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      }
      const v2 = await sendRaw(t, '/flags/?v=2', undefined, {}, 'GET');
      expect([v2.status, v2.body]).toEqual([200, { ...minimal, flags: {} }]);
      const head = await sendRaw(t, '/flags/', undefined, {}, 'HEAD');
      expect([head.status, head.text, head.headers.get('content-type')]).toEqual([200, '', expect.stringMatching(/^application\/json/)]);
    });

    it("uses a client's X-Request-Id as requestId when it is a UUID", async () => {
      const id = '550e8400-e29b-41d4-a716-446655440000';
      const res = await decide('/flags/?v=2', { distinct_id: 'x' }, { 'x-request-id': id });
      expect([res.body.requestId, res.headers.get('x-request-id')]).toEqual([id, id]);
      const other = await decide('/flags/?v=2', { distinct_id: 'x' }, { 'x-request-id': 'trace-1' });
      expect(other.body.requestId).toEqual(UUID);
      const none = await decide('/flags/?v=2', { distinct_id: 'x' });
      expect(none.headers.get('x-request-id')).toBe(none.body.requestId);
    });

    it('answers the CORS preflight and echoes the Origin on replies', async () => {
      const preflight = await t.http.request('OPTIONS', '/flags/?v=2', {
        key: null,
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
      const res = await decide('/flags/?v=2', { distinct_id: 'x' }, { origin: 'https://app.example.com' });
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    });
  });

  describe('errors', () => {
    it('no key: 401 missing_api_key', async () => {
      const res = await sendJson(t, '/flags/?v=2', { distinct_id: 'x' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        type: 'authentication_error',
        code: 'missing_api_key',
        detail: `API key not provided. Send the project API key (phc_) as "api_key" or "token" in the body, or as ?token=. The project API key is printed on the first boot and is the "api_token" of GET /api/projects/@current/ (or \`npm run cli -- projects list\`).`,
        attr: null,
      });
    });

    it('an unknown key: 401 invalid_api_key, with CORS headers so browsers can read it', async () => {
      const res = await sendJson(t, '/decide/', { token: 'phc_unknownunknownunknownunknown', distinct_id: 'x' }, { origin: 'https://a.example' });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', attr: null });
      expect(res.headers.get('access-control-allow-origin')).toBe('https://a.example');
    });

    it.each([
      ['missing', {}],
      ['null', { distinct_id: null }],
      ['an object', { distinct_id: { id: 1 } }],
    ])('distinct_id %s: 400 missing_distinct_id', async (_name, body) => {
      const res = await decide('/decide/', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', code: 'missing_distinct_id', detail: 'Decide requires a distinct_id.', attr: 'distinct_id' });
    });

    it.each([
      ['groups', { groups: 'company' }, 'groups must be a JSON object.'],
      ['person_properties', { person_properties: [1] }, 'person_properties must be a JSON object.'],
      ['group_properties', { group_properties: { company: 3 } }, 'group_properties.company must be a JSON object.'],
      ['flag_keys_to_evaluate', { flag_keys_to_evaluate: 'a' }, 'flag_keys_to_evaluate must be a list of flag keys.'],
    ])('a malformed %s: 400 malformed_data', async (attr, body, detail) => {
      const res = await decide('/flags/?v=2', { distinct_id: 'x', ...body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', code: 'malformed_data', detail, attr });
    });

    it.each([
      ['/flags/?v=2', 'application/xml', 'application/xml'],
      ['/decide/?v=3', 'multipart/form-data; boundary=x', 'multipart/form-data'],
      ['/flags/', 'Application/Octet-Stream', 'application/octet-stream'],
    ])('a body to %s sent as %s: 400 unsupported_content_type before it is read, with CORS', async (path, type, media) => {
      const res = await sendRaw(t, path, JSON.stringify({ token, distinct_id: 'x' }), { 'content-type': type, origin: 'https://app.example.com' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        type: 'validation_error',
        code: 'unsupported_content_type',
        detail: `Unsupported content type "${media}": send the body as application/json, text/plain, application/x-www-form-urlencoded.`,
        attr: null,
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    });

    it('a body that is not JSON: 400', async () => {
      const res = await sendRaw(t, '/flags/?v=2', '{"token": ', { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error' });
    });

    it('a JSON array body: 400 malformed_data after the key check', async () => {
      const res = await sendRaw(t, `/flags/?v=2&token=${token}`, '[1,2]', { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', code: 'malformed_data', detail: 'Malformed request data: expected a JSON object.', attr: null });
    });
  });

  describe('groups', () => {
    beforeAll(async () => {
      await ingest([{ event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'organization', $group_key: 'org-1', $group_set: { tier: 'gold' } } }]);
      await createFlag({
        key: 'org-gold',
        filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }] },
      });
    });

    it('evaluates group flags with stored group properties, and no_group_type without the group', async () => {
      const hit = await decide('/flags/?v=2', { distinct_id: 'x', groups: { organization: 'org-1' } });
      expect(hit.body.flags['org-gold']).toMatchObject({ enabled: true, reason: { code: 'condition_match' } });
      const none = await decide('/flags/?v=2', { distinct_id: 'x' });
      expect(none.body.flags['org-gold']).toMatchObject({ enabled: false, reason: { code: 'no_group_type', condition_index: null } });
    });

    it('a group key that is not a string or number names no group: its flags are no_group_type, the rest evaluate', async () => {
      for (const key of [null, true, ['org-1'], { id: 'org-1' }]) {
        const res = await decide('/flags/?v=2', { distinct_id: 'distinct_id', groups: { organization: key } });
        expect(res.status).toBe(200);
        expect(res.body.flags['org-gold']).toMatchObject({ enabled: false, reason: { code: 'no_group_type' } });
        expect(res.body.flags.paying.enabled).toBe(true);
      }
    });

    it('request group_properties override stored ones; an unknown group matches on them alone', async () => {
      const overridden = await decide('/flags/?v=2', { distinct_id: 'x', groups: { organization: 'org-1' }, group_properties: { organization: { tier: 'silver' } } });
      expect(overridden.body.flags['org-gold'].enabled).toBe(false);
      const unknown = await decide('/flags/?v=2', { distinct_id: 'x', groups: { organization: 'org-9' }, group_properties: { organization: { tier: 'gold' } } });
      expect(unknown.body.flags['org-gold'].enabled).toBe(true);
    });
  });

  describe('static cohorts', () => {
    it('a merge keeps the static cohort memberships of the merged-away person', async () => {
      await ingest([
        { event: '$pageview', distinct_id: 'm-anon' },
        { event: '$set', distinct_id: 'm-user', properties: { $set: { x: 1 } } },
      ]);
      const cohort = await t.http.post(`/api/projects/${t.keys.projectId}/cohorts/`, { name: 'listed', is_static: true, distinct_ids: ['m-anon'] });
      expect(cohort.status).toBe(201);
      await createFlag({ key: 'listed-only', filters: { groups: [{ properties: [{ key: 'id', value: cohort.body.id, type: 'cohort' }], rollout_percentage: 100 }] } });
      const enabledFor = async (id: string) => (await decide('/flags/?v=2', { distinct_id: id, flag_keys_to_evaluate: ['listed-only'] })).body.flags['listed-only'].enabled;
      expect([await enabledFor('m-anon'), await enabledFor('m-user')]).toEqual([true, false]);
      const personOf = async (id: string) => (await t.sql<{ person_id: string }>('SELECT person_id FROM person_distinct_id WHERE distinct_id = $1', [id]))[0].person_id;
      const identified = await personOf('m-user');
      await ingest([{ event: '$identify', distinct_id: 'm-user', properties: { $anon_distinct_id: 'm-anon' } }]);
      const owners = await t.sql<{ n: string }>('SELECT count(DISTINCT person_id) AS n FROM person_distinct_id WHERE distinct_id = ANY($1)', [['m-anon', 'm-user']]);
      expect(owners).toEqual([{ n: '1' }]);
      expect(await personOf('m-anon')).toBe(identified); // the anonymous person was merged away

      expect([await enabledFor('m-anon'), await enabledFor('m-user')]).toEqual([true, true]);
    });
  });

  describe('experience continuity', () => {
    it('after identify the flag keeps the value the anonymous id had, and the first override wins', async () => {
      await createFlag({
        key: 'sticky',
        ensure_experience_continuity: true,
        filters: { groups: [{ rollout_percentage: 50 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } },
      });
      // Find an anonymous id and an identified id that bucket differently, so keeping the value means something.
      const valueFor = async (id: string) => (await decide('/decide/?v=2', { distinct_id: id })).body.featureFlags.sticky ?? false;
      let anon = '';
      let user = '';
      for (let i = 0; i < 50 && !user; i++) {
        anon = `anon-${i}`;
        for (let j = 0; j < 50 && !user; j++) if ((await valueFor(`user-${i}-${j}`)) !== (await valueFor(anon))) user = `user-${i}-${j}`;
      }
      const before = await valueFor(anon);
      await ingest([{ event: '$pageview', distinct_id: anon }]);
      const after = await decide('/decide/?v=2', { distinct_id: user, $anon_distinct_id: anon });
      expect(after.body.featureFlags.sticky ?? false).toBe(before);
      const rows = await t.sql('SELECT feature_flag_key, hash_key FROM feature_flag_hash_key_override');
      expect(rows).toEqual([{ feature_flag_key: 'sticky', hash_key: anon }]);
      // identify merges the persons; the override moves with them, and a later anon id does not replace it.
      await ingest([{ event: '$identify', distinct_id: user, properties: { $anon_distinct_id: anon } }]);
      await waitForRows(t, 'SELECT 1 FROM person_distinct_id WHERE distinct_id = ANY($1)', [[user, anon]], 2);
      const later = await decide('/decide/?v=2', { distinct_id: user, $anon_distinct_id: 'another-anon' });
      expect(later.body.featureFlags.sticky ?? false).toBe(before);
      expect(await t.sql('SELECT hash_key FROM feature_flag_hash_key_override')).toEqual([{ hash_key: anon }]);
    });
  });

  describe('evaluation reads', () => {
    const paying = async () => (await decide('/flags/?v=2', { distinct_id: 'distinct_id', flag_keys_to_evaluate: ['paying'] })).body;

    it('look persons up on their own sessions, which plan the lookup once instead of on every request', async () => {
      for (let i = 0; i < 8; i++) expect((await paying()).flags.paying.enabled).toBe(true);
      const reads = t.app.get(EvaluationReadPool);
      // The pool hands out the connection released last: the one those lookups ran on.
      const { rows } = await reads.query<{ generic_plans: string; custom_plans: string }>({
        text: `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'decide_persons'`,
      });
      expect(rows).toHaveLength(1);
      expect(Number(rows[0].generic_plans)).toBeGreaterThanOrEqual(8);
      expect(rows[0].custom_plans).toBe('0');
      // TypeORM's sessions keep PostgreSQL's default, under which plans follow the values of each query.
      expect(await t.app.get(DataSource).query('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'auto' }]);
    });

    it('recover by themselves when the database closes their connections', async () => {
      await paying();
      const closed = await t.sql<{ closed: boolean }>(
        'SELECT pg_terminate_backend(pid) AS closed FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [EVALUATION_APPLICATION_NAME],
      );
      expect(closed.length).toBeGreaterThan(0);
      let body = await paying();
      for (let tries = 0; tries < 50 && body.errorsWhileComputingFlags; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        body = await paying();
      }
      expect(body).toMatchObject({ errorsWhileComputingFlags: false, flags: { paying: { enabled: true } } });
    });
  });

  describe("names that are also Object.prototype's", () => {
    beforeAll(async () => {
      await ingest([
        { event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'constructor', $group_key: 'c-1' } },
        { event: '$groupidentify', distinct_id: 'g', properties: { $group_type: '__proto__', $group_key: 'p-1' } },
      ]);
      const mapping = await t.sql<{ group_type: string; group_type_index: number }>('SELECT group_type, group_type_index FROM group_type_mapping ORDER BY group_type_index');
      const indexOf = (name: string) => mapping.find((row) => row.group_type === name)!.group_type_index;
      for (const name of ['constructor', '__proto__']) {
        await createFlag({ key: `by-${name}`, filters: { aggregation_group_type_index: indexOf(name), groups: [{ rollout_percentage: 100 }] } });
      }
      await createFlag({ key: 'tostring-variant', filters: { groups: [{ rollout_percentage: 100 }], multivariate: { variants: [{ key: 'toString', rollout_percentage: 100 }] } } });
    });

    it('serves a variant called toString without a payload, in valid JSON on every shape', async () => {
      for (const path of ['/flags/?v=2', '/decide/?v=3', '/decide/?v=4']) {
        const res = await decide(path, { distinct_id: 'x' });
        expect(res.status).toBe(200);
        expect(() => JSON.parse(res.text)).not.toThrow();
        const flags = res.body.flags ?? null;
        if (flags) expect(flags['tostring-variant']).toMatchObject({ enabled: true, variant: 'toString', metadata: { payload: null } });
        else expect([res.body.featureFlags['tostring-variant'], res.body.featureFlagPayloads['tostring-variant']]).toEqual(['toString', undefined]);
      }
    });

    it('evaluates group flags only with the group the request names, even for group types called constructor or __proto__', async () => {
      const none = await decide('/flags/?v=2', { distinct_id: 'x' });
      expect([none.body.flags['by-constructor'].reason.code, none.body.flags['by-__proto__'].reason.code]).toEqual(['no_group_type', 'no_group_type']);
      const both = await decide('/flags/?v=2', { distinct_id: 'x', groups: { constructor: 'c-1', ['__proto__']: 'p-1' } });
      expect([both.body.flags['by-constructor'].enabled, both.body.flags['by-__proto__'].enabled]).toEqual([true, true]);
      const reasons = await t.http.get(`/api/projects/${t.keys.projectId}/feature_flags/evaluation_reasons/?distinct_id=x`);
      expect(reasons.body['by-constructor']).toEqual({ value: false, evaluation: { reason: 'no_group_type', condition_index: null } });
    });

    it('lists a flag called __proto__ in evaluation_reasons', async () => {
      await createFlag({ key: '__proto__', filters: { groups: [{ rollout_percentage: 100 }] } });
      const reasons = await t.http.get(`/api/projects/${t.keys.projectId}/feature_flags/evaluation_reasons/?distinct_id=x`);
      expect(JSON.parse(reasons.text).__proto__).toEqual({ value: true, evaluation: { reason: 'condition_match', condition_index: 0 } });
    });
  });
});
