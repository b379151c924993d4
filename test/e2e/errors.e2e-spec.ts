import { startTestApp, TestApp } from '../support/test-app';

/** Every error anywhere is PostHog's four-key envelope, never a Nest or Fastify default body. */
describe('Error replies', () => {
  let t: TestApp;
  const MAX_BODY = 4096;

  beforeAll(async () => {
    t = await startTestApp({ env: { MAX_BODY_BYTES: String(MAX_BODY) } });
  });
  afterAll(() => t.close());

  it('answers an unknown route with 404 Endpoint not found, pointing to the API docs and the console', async () => {
    for (const path of ['/api/nothing-here/', '/no/such/path', '/api/projects/1/nothing/']) {
      const res = await t.http.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found: the API is described at /api/docs/ (OpenAPI at /api/schema/), and the web console is at /.', attr: null });
    }
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.http.delete('/api/projects/');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "DELETE" not allowed.', attr: null });
    expect(res.headers.get('allow')).toBe('GET, POST');
  });

  it('answers 405 on parametrised paths too', async () => {
    const res = await t.http.request('PUT', `/api/projects/${t.keys.projectId}/`, { json: {} });
    expect(res.status).toBe(405);
    expect(res.body.detail).toBe('Method "PUT" not allowed.');
    expect(res.headers.get('allow')).toBe('GET, PATCH');
  });

  describe('a list action reached with a detail route method (PostHog routes list actions first)', () => {
    const project = () => `/api/projects/${t.keys.projectId}`;
    const cases: Array<[string, string, string]> = [
      ['GET', '/persons/bulk_delete/', 'POST'],
      ['PATCH', '/persons/bulk_delete/', 'POST'],
      ['DELETE', '/persons/bulk_delete', 'POST'],
      ['PATCH', '/persons/activity/', 'GET'],
      ['DELETE', '/persons/values/', 'GET'],
      ['PATCH', '/feature_flags/my_flags/', 'GET'],
      ['DELETE', '/feature_flags/evaluation_reasons/', 'GET'],
      ['GET', '/feature_flags/user_blast_radius/', 'POST'],
      ['PUT', '/feature_flags/local_evaluation/', 'GET'],
    ];

    it.each(cases)('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
      const res = await t.http.request(method, `${project()}${path}`, method === 'GET' ? {} : { json: { properties: { a: 1 } } });
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null });
      expect(res.headers.get('allow')).toBe(allow);
    });

    it('checks the key first, as PostHog authenticates before it looks at the method', async () => {
      const res = await t.http.patch(`${project()}/persons/bulk_delete/`, {}, { key: null });
      expect([res.status, res.body.code]).toEqual([401, 'not_authenticated']);
    });

    it('answers HEAD like GET and still serves the detail routes', async () => {
      const head = await t.http.request('HEAD', `${project()}/persons/bulk_delete/`);
      expect([head.status, head.headers.get('allow')]).toEqual([405, 'POST']);
      const person = await t.http.get(`${project()}/persons/00000000-0000-4000-8000-000000000000/`);
      expect(person.status).toBe(404);
      const flag = await t.http.post(`${project()}/feature_flags/`, { key: 'shadow-check', filters: { groups: [{ rollout_percentage: 100 }] } });
      expect(flag.status).toBe(201);
      expect((await t.http.get(`${project()}/feature_flags/${flag.body.id}/`)).body.key).toBe('shadow-check');
      expect((await t.http.patch(`${project()}/feature_flags/${flag.body.id}/`, { name: 'renamed' })).body.name).toBe('renamed');
      expect((await t.http.get(`${project()}/feature_flags/my_flags/`)).status).toBe(200);
    });
  });

  it('treats the trailing slash as optional', async () => {
    expect((await t.http.get('/api/users/@me')).status).toBe(200);
    expect((await t.http.get('/api/users/@me/')).status).toBe(200);
  });

  it('answers a body over MAX_BODY_BYTES with 413 before running the route', async () => {
    const res = await t.http.post('/api/projects/', undefined, {
      raw: JSON.stringify({ name: 'x'.repeat(MAX_BODY) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      type: 'invalid_request',
      code: 'payload_too_large',
      detail: `Request body is larger than the limit of ${MAX_BODY} bytes.`,
      attr: null,
    });
    const projects = await t.sql(`SELECT count(*)::int AS n FROM project`);
    expect(projects[0].n).toBe(1);
  });

  it('answers malformed JSON with 400 parse_error', async () => {
    const res = await t.http.post('/api/projects/', undefined, { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_request');
    expect(res.body.code).toBe('parse_error');
    expect(res.body.detail).toMatch(/^JSON parse error - /);
    expect(res.body.attr).toBeNull();
  });

  it('answers a body that is not JSON by its type with 415, naming the media type; JSON types are read in any case', async () => {
    const xml = await t.http.post('/api/projects/', undefined, { raw: '<name>p</name>', headers: { 'content-type': 'Text/XML; charset=utf-8' } });
    expect(xml.status).toBe(415);
    expect(xml.body).toEqual({ type: 'invalid_request', code: 'unsupported_media_type', detail: 'Unsupported media type "text/xml" in request.', attr: null });
    const json = await t.http.post('/api/projects/', undefined, { raw: '{"name": ', headers: { 'content-type': 'Application/Vnd.Api+JSON; charset=utf-8' } });
    expect([json.status, json.body.code]).toEqual([400, 'parse_error']);
  });

  it('refuses a prototype-poisoning body and leaves Object.prototype alone', async () => {
    const res = await t.http.post('/api/projects/', undefined, {
      raw: '{"name": "p", "__proto__": {"polluted": true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('parse_error');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  describe('validation errors name the first failing field in attr', () => {
    it.each([
      [{}, { code: 'required', detail: 'This field is required.', attr: 'name' }],
      [{ name: null }, { code: 'null', detail: 'This field may not be null.', attr: 'name' }],
      [{ name: 5 }, { code: 'invalid_input', detail: 'Not a valid string.', attr: 'name' }],
      [{ name: '' }, { code: 'blank', detail: 'This field may not be blank.', attr: 'name' }],
      [{ name: 'x'.repeat(201) }, { code: 'max_length', detail: 'Ensure this field has no more than 200 characters.', attr: 'name' }],
      [{ name: 'ok', timezone: 'Mars/Olympus' }, { code: 'invalid_choice', detail: '"Mars/Olympus" is not a valid choice.', attr: 'timezone' }],
      [{ name: 'ok', app_urls: 'https://a' }, { code: 'not_a_list', detail: 'Expected a list of items but got type "str".', attr: 'app_urls' }],
    ])('POST %j → %j', async (body, expected) => {
      const res = await t.http.post('/api/projects/', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', ...expected });
    });
  });

  it('sends a request id on every reply, and keeps a sane incoming one', async () => {
    const fresh = await t.http.get('/api/users/@me/');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await t.http.get('/api/users/@me/', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-abc.123');
    const replaced = await t.http.get('/api/users/@me/', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });
});
