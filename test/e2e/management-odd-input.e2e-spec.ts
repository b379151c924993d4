import { sendJson } from '../support/capture-client';
import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });

/**
 * Inputs found by fuzzing the management API that once answered 500 or Fastify's own error body: deep
 * nesting, NUL and lone surrogates, names that are objects, ids no column can hold, and URLs Fastify
 * refuses before routing. Each must now be a 4xx in PostHog's envelope, or be stored cleaned.
 */
describe('Management API: input that reaches below the routes', () => {
  let t: TestApp;
  let project: string;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    project = `/api/projects/${t.keys.projectId}`;
  });
  afterAll(() => t.close());

  it('refuses a body nested deeper than 128 levels on every body route, before validation recurses', async () => {
    const deep = '['.repeat(3000) + ']'.repeat(3000);
    for (const [method, path] of [['POST', `${project}/persons/`], ['POST', `${project}/feature_flags/`], ['POST', '/api/projects/'], ['POST', `${project}/cohorts/`]]) {
      const res = await t.http.request(method, path, { raw: deep, headers: json });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: { type: 'invalid_request', code: 'parse_error', detail: 'JSON parse error - nesting deeper than 128 levels', attr: null },
      });
    }
  });

  it('stores NUL and lone surrogates in any body field as U+FFFD, as ingestion does', async () => {
    const flag = await t.http.post(`${project}/feature_flags/`, undefined, {
      raw: '{"key":"odd-text","name":"a\\u0000b\\ud800","tags":["t\\u0000"],"filters":{"groups":[{"properties":[{"key":"k\\u0000","value":"v\\udfff","type":"person"}]}]}}',
      headers: json,
    });
    expect(flag.status).toBe(201);
    expect([flag.body.name, flag.body.tags, flag.body.filters.groups[0].properties[0]]).toEqual(['a\ufffdb\ufffd', ['t\ufffd'], { key: 'k\ufffd', value: 'v\ufffd', type: 'person' }]);
    const renamed = await t.http.patch(`${project}/feature_flags/${flag.body.id}/`, undefined, { raw: '{"name":"x\\ud800y"}', headers: json });
    expect([renamed.status, renamed.body.name]).toEqual([200, 'x\ufffdy']);
    const cohort = await t.http.post(`${project}/cohorts/`, undefined, { raw: '{"name":"c\\u0000","description":"d\\ud800","is_static":true}', headers: json });
    expect([cohort.status, cohort.body.name, cohort.body.description]).toEqual([201, 'c\ufffd', 'd\ufffd']);
    const created = await t.http.post('/api/projects/', undefined, { raw: '{"name":"p\\u0000","app_urls":["https://a\\ud800"]}', headers: json });
    expect([created.status, created.body.name, created.body.app_urls]).toEqual([201, 'p\ufffd', ['https://a\ufffd']]);
    const key = await t.http.post(`${project}/feature_flags/`, undefined, { raw: '{"key":"a\\u0000b"}', headers: json });
    expect(key.body).toEqual(invalid('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key'));
  });

  it('reads NUL in query values as U+FFFD: searches and distinct ids answer instead of failing in SQL', async () => {
    for (const path of [`${project}/feature_flags/?search=%00`, `${project}/cohorts/?search=a%00`, `${project}/feature_flags/evaluation_reasons/?distinct_id=%00`]) {
      expect({ path, status: (await t.http.get(path)).status }).toEqual({ path, status: 200 });
    }
  });

  it('finds the person of a distinct id with NUL on /flags/, as ingestion stored it', async () => {
    await t.http.post(`${project}/feature_flags/`, { key: 'nul-person', filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] } });
    const token = t.keys.projectApiKey;
    await ingestBatch(t, token, [{ event: '$identify', distinct_id: 'nul\u0000id', properties: { $set: { plan: 'pro' } } }]);
    const res = await sendJson(t, '/flags/?v=2', { token, distinct_id: 'nul\u0000id' });
    expect([res.body.errorsWhileComputingFlags, res.body.flags['nul-person'].enabled]).toEqual([false, true]);
  });

  it('refuses a name given as an object on person actions with 400', async () => {
    const person = (await t.http.post(`${project}/persons/`, { properties: { email: 'odd@example.com' } })).body;
    expect(person.uuid).toEqual(expect.any(String));
    const object = { toString: 1 };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['update_property', { key: object, value: 1 }, 'key'],
      ['delete_property', { $unset: object }, '$unset'],
      ['split', { main_distinct_id: object }, 'main_distinct_id'],
    ];
    for (const [action, body, attr] of cases) {
      const res = await t.http.post(`${project}/persons/${person.uuid}/${action}/`, body);
      expect({ action, status: res.status, body: res.body }).toEqual({ action, status: 400, body: invalid('Not a valid string.', attr) });
    }
  });

  it('answers an event definition owner no user id can be with does_not_exist', async () => {
    await ingestBatch(t, t.keys.projectApiKey, [{ event: 'owned_event', distinct_id: 'o' }]);
    const [definition] = (await t.http.get(`${project}/event_definitions/?search=owned_event`)).body.results;
    for (const owner of ['2147483648', '1e308', '9007199254740992']) {
      const res = await t.http.patch(`${project}/event_definitions/${definition.id}/`, undefined, { raw: `{"owner":${owner}}`, headers: json });
      expect([res.status, res.body.code, res.body.attr]).toEqual([400, 'does_not_exist', 'owner']);
    }
  });

  it('answers an unknown token on config.js with a JSON 404, not a failed script', async () => {
    const res = await t.http.get('/array/phc_unknown/config.js', { key: null });
    expect([res.status, res.headers.get('content-type'), res.body.code]).toEqual([404, 'application/json; charset=utf-8', 'not_found']);
  });

  it('answers URLs Fastify refuses before routing in the PostHog envelope', async () => {
    const badUrl = await t.http.get('/api/projects/%ff/');
    expect([badUrl.status, badUrl.body]).toEqual([400, { type: 'invalid_request', code: 'invalid_url', detail: 'The URL path is not valid percent-encoded UTF-8.', attr: null }]);
    const longId = await t.http.get(`${project}/persons/${'a'.repeat(101)}/`);
    expect([longId.status, longId.body.detail]).toEqual([400, expect.stringContaining('does not look like a personID')]);
    const tooLong = await t.http.get(`${project}/persons/${'a'.repeat(501)}/`);
    expect([tooLong.status, tooLong.body.code]).toEqual([414, 'uri_too_long']);
    const hugeQuery = await t.http.get(`${project}/events/?properties=${'a'.repeat(20_000)}`);
    expect([hugeQuery.status, hugeQuery.body.code]).toEqual([431, 'request_header_fields_too_large']);
  });
});
