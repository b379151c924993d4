import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_METRICS_TOKEN } from '../support/test-env';

const ENDPOINT_NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found: the API is described at /api/docs/ (OpenAPI at /api/schema/), and the web console is at /.', attr: null };
const METRICS_OFF = {
  type: 'authentication_error',
  code: 'permission_denied',
  detail: 'Metrics are off. Set METRICS_TOKEN (16 to 512 visible ASCII characters) and send it as "Authorization: Bearer <METRICS_TOKEN>" (Prometheus: the scrape job\'s authorization credentials).',
  attr: null,
};
const FRAMING_AND_SNIFFING = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" };

const securityHeaders = (headers: Headers) => ({
  'x-content-type-options': headers.get('x-content-type-options'),
  'x-frame-options': headers.get('x-frame-options'),
  'content-security-policy': headers.get('content-security-policy'),
});

describe('Operational endpoints', () => {
  describe.each(['redis', 'postgres'] as const)('with the %s queue backend', (queue) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ queue });
    });
    afterAll(() => t.close());

    it('reports liveness without a key', async () => {
      const res = await t.http.get('/_health', { key: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('reports readiness of the database and the queue', async () => {
      const res = await t.http.get('/_readyz', { key: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', checks: { database: 'ok', queue: 'ok' }, queue_backend: queue });
    });
  });

  describe('metrics without METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it.each([null, TEST_METRICS_TOKEN])('is off, saying how to turn it on (bearer %p)', async (key) => {
      const res = await t.http.get('/metrics', { key });
      expect([res.status, res.body]).toEqual([403, METRICS_OFF]);
    });
  });

  describe('metrics, OpenAPI and docs', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
    });
    afterAll(() => t.close());

    it('refuses a scrape without a token with 401', async () => {
      const res = await t.http.get('/metrics', { key: null });
      expect([res.status, res.headers.get('www-authenticate'), res.body]).toEqual([401, 'Bearer', {
        type: 'authentication_error',
        code: 'not_authenticated',
        detail: 'Authentication credentials were not provided. Send METRICS_TOKEN as "Authorization: Bearer <METRICS_TOKEN>".',
        attr: null,
      }]);
    });

    it.each([`${TEST_METRICS_TOKEN}x`, TEST_METRICS_TOKEN.slice(1), 'personal key'])('refuses a scrape with another token (%s) with 401', async (token) => {
      const res = await t.http.get('/metrics', { key: token === 'personal key' ? t.keys.personalApiKey : token });
      expect([res.status, res.headers.get('www-authenticate'), res.body]).toEqual([401, 'Bearer', {
        type: 'authentication_error',
        code: 'authentication_failed',
        detail: 'The bearer token is not the METRICS_TOKEN this service was started with.',
        attr: null,
      }]);
    });

    it('exposes Prometheus metrics including request durations to the METRICS_TOKEN', async () => {
      await t.http.get('/api/users/@me/');
      const res = await t.http.get('/metrics', { key: TEST_METRICS_TOKEN });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(res.text).toContain('http_request_duration_seconds_bucket');
      expect(res.text).toMatch(/route="\/api\/users\/:uuid",status="200"/);
      expect(res.text).toContain('process_cpu_seconds_total');
      expect(res.text).toMatch(/ingestion_queue_jobs\{queue="ingestion-0",state="waiting"\} \d+/);
    });

    it('serves the OpenAPI document at /api/schema/ listing the routes with bearer auth', async () => {
      const res = await t.http.get('/api/schema/', { key: null });
      expect(res.status).toBe(200);
      expect(res.body.openapi).toMatch(/^3\./);
      expect(Object.keys(res.body.paths)).toEqual(
        expect.arrayContaining(['/api/projects', '/api/projects/{id}', '/api/users/{uuid}', '/api/user', '/api/personal_api_keys']),
      );
      expect(res.body.paths['/api/projects'].get.security).toEqual([{ bearer: [] }]);
      expect(res.body.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'phx_ personal API key', description: 'Personal API key (phx_…)' });
    });

    it('documents every feature-flag, role and role-access route', async () => {
      const { body } = await t.http.get('/api/schema/', { key: null });
      const flags = '/api/projects/{project_id}/feature_flags';
      const roleAccess = `${flags}/{parent_lookup_feature_flag_id}/role_access`;
      const roles = '/api/organizations/{organization_id}/roles';
      const expected: Record<string, string[]> = {
        [flags]: ['get', 'post'],
        [`${flags}/{id}`]: ['get', 'patch', 'delete'],
        [`${flags}/activity`]: ['get'],
        [`${flags}/{id}/activity`]: ['get'],
        [roleAccess]: ['get', 'post'],
        [`${roleAccess}/{id}`]: ['get', 'delete'],
        [roles]: ['get', 'post'],
        [`${roles}/{id}`]: ['get', 'patch', 'delete'],
        [`${roles}/{role_id}/role_memberships`]: ['get', 'post'],
        [`${roles}/{role_id}/role_memberships/{id}`]: ['delete'],
        ['/api/organizations/{organization_id}/resource_access']: ['get', 'post'],
        ['/api/organizations/{organization_id}/resource_access/{id}']: ['get', 'patch', 'delete'],
      };
      for (const [path, methods] of Object.entries(expected)) expect(Object.keys(body.paths[path] ?? {}).sort()).toEqual([...methods].sort());
      // Property-level schemas come from the Swagger compiler plugin, so the built service is checked in processes.e2e-spec.ts.
      expect(body.paths[flags].post.requestBody.content['application/json'].schema.$ref).toMatch(/CreateFeatureFlagDto$/);
      expect(body.paths[`${flags}/{id}`].patch.requestBody.content['application/json'].schema.$ref).toMatch(/UpdateFeatureFlagDto$/);
      expect(body.paths[roleAccess].post.requestBody.content['application/json'].schema.$ref).toMatch(/CreateRoleAccessDto$/);
    });

    it('documents every cohort route', async () => {
      const { body } = await t.http.get('/api/schema/', { key: null });
      const cohorts = '/api/projects/{project_id}/cohorts';
      const expected: Record<string, string[]> = {
        [cohorts]: ['get', 'post'],
        [`${cohorts}/{id}`]: ['get', 'patch', 'delete'],
        [`${cohorts}/{id}/add_persons_to_static_cohort`]: ['patch'],
        [`${cohorts}/{id}/remove_person_from_static_cohort`]: ['patch'],
      };
      for (const [path, methods] of Object.entries(expected)) expect(Object.keys(body.paths[path] ?? {}).sort()).toEqual([...methods].sort());
      expect(body.paths[cohorts].post.requestBody.content['application/json'].schema.$ref).toMatch(/CreateCohortDto$/);
      expect(body.paths[`${cohorts}/{id}`].patch.requestBody.content['application/json'].schema.$ref).toMatch(/UpdateCohortDto$/);
    });

    it('documents every flag evaluation route', async () => {
      const { body } = await t.http.get('/api/schema/', { key: null });
      const flags = '/api/projects/{project_id}/feature_flags';
      const expected: Record<string, string[]> = {
        '/decide': ['get', 'post', 'options'],
        '/flags': ['get', 'post', 'options'],
        '/flags/definitions': ['get'],
        '/api/feature_flag/local_evaluation': ['get'],
        [`${flags}/local_evaluation`]: ['get'],
        [`${flags}/my_flags`]: ['get'],
        [`${flags}/evaluation_reasons`]: ['get'],
        [`${flags}/user_blast_radius`]: ['post'],
      };
      for (const [path, methods] of Object.entries(expected)) expect(Object.keys(body.paths[path] ?? {}).sort()).toEqual([...methods].sort());
    });

    it('documents every analytics route with its parameters', async () => {
      const { body } = await t.http.get('/api/schema/', { key: null });
      const project = '/api/projects/{project_id}';
      const expected: Record<string, string[]> = {
        [`${project}/insights/trend`]: ['get', 'post'],
        [`${project}/persons/trends`]: ['get'],
        [`${project}/persons/stickiness`]: ['get'],
        [`${project}/persons/lifecycle`]: ['get'],
        [`${project}/insights/funnel`]: ['get', 'post'],
        [`${project}/insights/funnel/correlation`]: ['get', 'post'],
        [`${project}/persons/funnel`]: ['get', 'post'],
        [`${project}/persons/funnel/correlation`]: ['get', 'post'],
        [`${project}/insights/retention`]: ['get'],
        [`${project}/persons/retention`]: ['get'],
        [`${project}/insights/path`]: ['get', 'post'],
        [`${project}/persons/path`]: ['get', 'post'],
        [`${project}/query`]: ['post'],
      };
      for (const [path, methods] of Object.entries(expected)) expect(Object.keys(body.paths[path] ?? {}).sort()).toEqual([...methods].sort());
      const names = (path: string) => (body.paths[path].get.parameters as Array<{ name: string }>).map((p) => p.name);
      expect(names(`${project}/insights/trend`)).toEqual(expect.arrayContaining(['events', 'date_from', 'date_to', 'interval', 'properties', 'breakdown', 'compare', 'formula', 'display', 'shown_as', 'refresh']));
      expect(names(`${project}/persons/trends`)).toEqual(expect.arrayContaining(['entity_id', 'entity_math', 'entity_order', 'breakdown_value', 'search', 'limit', 'offset']));
      expect(names(`${project}/persons/stickiness`)).toContain('stickiness_days');
      expect(names(`${project}/persons/lifecycle`)).toEqual(expect.arrayContaining(['target_date', 'lifecycle_type']));
      expect(names(`${project}/insights/funnel`)).toEqual(expect.arrayContaining([
        'events', 'funnel_order_type', 'funnel_window_interval', 'funnel_window_interval_unit', 'funnel_window_days', 'exclusions', 'funnel_viz_type',
        'funnel_from_step', 'funnel_to_step', 'bin_count', 'breakdown', 'breakdown_type', 'breakdowns', 'breakdown_attribution_type', 'breakdown_attribution_value',
      ]));
      expect(names(`${project}/persons/funnel`)).toEqual(expect.arrayContaining(['funnel_step', 'funnel_custom_steps', 'funnel_step_breakdown', 'entrance_period_start', 'drop_off', 'search', 'limit', 'offset']));
      expect(names(`${project}/insights/funnel/correlation`)).toEqual(expect.arrayContaining([
        'funnel_correlation_type', 'funnel_correlation_exclude_event_names', 'funnel_correlation_event_names', 'funnel_correlation_event_exclude_property_names',
        'funnel_correlation_names', 'funnel_correlation_exclude_names',
      ]));
      expect(names(`${project}/persons/funnel/correlation`)).toEqual(expect.arrayContaining([
        'funnel_correlation_person_entity', 'funnel_correlation_property_values', 'funnel_correlation_person_converted', 'funnel_correlation_person_limit', 'funnel_correlation_person_offset',
      ]));
      expect(names(`${project}/insights/retention`)).toEqual(expect.arrayContaining(['target_entity', 'returning_entity', 'retention_type', 'period', 'total_intervals', 'date_to', 'breakdown']));
      expect(names(`${project}/persons/retention`)).toEqual(expect.arrayContaining(['selected_interval', 'breakdown_values', 'limit', 'offset']));
      expect(names(`${project}/insights/path`)).toEqual(expect.arrayContaining([
        'path_type', 'include_event_types', 'include_custom_events', 'exclude_events', 'start_point', 'end_point', 'step_limit', 'edge_limit', 'min_edge_weight',
        'max_edge_weight', 'path_groupings', 'path_replacements', 'local_path_cleaning_filters', 'funnel_paths', 'funnel_filter',
      ]));
      expect(names(`${project}/persons/path`)).toEqual(expect.arrayContaining(['path_start_key', 'path_end_key', 'path_dropoff_key', 'limit', 'offset']));
      expect(body.paths[`${project}/query`].post.requestBody.content['application/json'].schema.required).toEqual(['query']);
    });

    it('documents every persons, events and event-definitions route', async () => {
      const { body } = await t.http.get('/api/schema/', { key: null });
      const project = '/api/projects/{project_id}';
      const expected: Record<string, string[]> = {
        [`${project}/persons`]: ['get', 'post'],
        [`${project}/persons.csv`]: ['get'],
        [`${project}/persons/{id}`]: ['get', 'patch', 'delete'],
        [`${project}/persons/activity`]: ['get'],
        [`${project}/persons/values`]: ['get'],
        [`${project}/persons/properties`]: ['get'],
        [`${project}/persons/cohorts`]: ['get'],
        [`${project}/persons/{id}/activity`]: ['get'],
        [`${project}/persons/{id}/delete_property`]: ['post'],
        [`${project}/persons/{id}/update_property`]: ['post'],
        [`${project}/persons/{id}/split`]: ['post'],
        [`${project}/persons/bulk_delete`]: ['post'],
        [`${project}/events`]: ['get'],
        [`${project}/events.csv`]: ['get'],
        [`${project}/events/values`]: ['get'],
        [`${project}/events/{id}`]: ['get'],
        [`${project}/event_definitions`]: ['get'],
        [`${project}/event_definitions/{id}`]: ['get', 'patch'],
      };
      for (const [path, methods] of Object.entries(expected)) expect({ path, methods: Object.keys(body.paths[path] ?? {}).sort() }).toEqual({ path, methods: [...methods].sort() });
      expect(body.paths[`${project}/persons/{id}`].patch.requestBody.content['application/json'].schema.$ref).toMatch(/PersonPropertiesDto$/);
      expect(body.paths[`${project}/event_definitions/{id}`].patch.requestBody.content['application/json'].schema.$ref).toMatch(/UpdateEventDefinitionDto$/);
      const bulkDelete = body.paths[`${project}/persons/bulk_delete`].post;
      expect(bulkDelete.requestBody.content['application/json'].schema.$ref).toMatch(/BulkDeletePersonsDto$/);
      expect(bulkDelete.responses['202'].content['application/json'].schema.$ref).toMatch(/BulkDeletePersonsResultDto$/);
      const parameters = (path: string) => body.paths[path].get.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name);
      for (const path of [`${project}/events`, `${project}/events.csv`]) {
        expect(parameters(path)).toEqual(expect.arrayContaining(['orderBy', 'after_id', 'before_id', 'include_person', 'action_id', 'properties']));
      }
      expect(parameters(`${project}/events/{id}`)).toEqual(['include_person']);
    });

    it('serves the interactive docs at /api/docs/', async () => {
      const res = await t.http.get('/api/docs/', { key: null });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.text).toContain('swagger');
    });

    it('serves every script and style sheet the docs page loads', async () => {
      const page = await t.http.get('/api/docs/', { key: null });
      const assets = [...page.text.matchAll(/(?:src|href)=["']([^"']+\.(?:js|css))["']/g)].map((match) => new URL(match[1], `${t.baseUrl}/api/docs/`).pathname);
      expect(assets).toEqual(expect.arrayContaining(['/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css', '/api/docs/swagger-ui-init.js']));
      for (const path of assets) {
        const res = await t.http.get(path, { key: null });
        expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({ path, status: 200, type: expect.stringMatching(/javascript|css/) });
      }
    });

    it('refuses to be framed on the docs page', async () => {
      const res = await t.http.get('/api/docs/', { key: null });
      expect(securityHeaders(res.headers)).toEqual(FRAMING_AND_SNIFFING);
    });

    it.each([
      '/api/docs/swagger-ui-bundle.js.map',
      '/api/docs/swagger-ui.css.map',
      '/api/docs/swagger-ui-standalone-preset.js.map',
      '/api/docs/docs/swagger-ui-bundle.js.map',
      '/api/docs/swagger-ui-bundle.js%2Emap',
    ])('answers %s as an unknown path, though swagger-ui ships it', async (path) => {
      const shipped = join(dirname(require.resolve('swagger-ui-dist/package.json')), decodeURIComponent(path).split('/').pop()!);
      expect(existsSync(shipped)).toBe(true);
      const res = await t.http.get(path, { key: null });
      expect([res.status, res.body]).toEqual([404, ENDPOINT_NOT_FOUND]);
    });

    it('answers a file swagger-ui does not have as an unknown path', async () => {
      const res = await t.http.get('/api/docs/no-such-file.js', { key: null });
      expect([res.status, res.body]).toEqual([404, ENDPOINT_NOT_FOUND]);
    });
  });

  describe('security headers', () => {
    let t: TestApp;
    let narrowKey: string;
    beforeAll(async () => {
      t = await startTestApp({ env: { METRICS_TOKEN: TEST_METRICS_TOKEN } });
      narrowKey = await t.app.get(ProvisioningService).createPersonalKey({ email: 'admin@localhost', label: 'narrow', scopes: ['user:read'], projectIds: null });
    });
    afterAll(() => t.close());

    const capture = () => t.http.post('/capture/', { api_key: t.keys.projectApiKey, event: 'e', distinct_id: 'd' }, { key: null });

    it.each<[string, () => Promise<{ status: number; headers: Headers }>, number]>([
      ['a public route', () => t.http.get('/_health', { key: null }), 200],
      ['a personal-key route', () => t.http.get('/api/users/@me/'), 200],
      ['an error of a personal-key route', () => t.http.get('/api/users/@me/', { key: null }), 401],
      ['an unknown route', () => t.http.get('/no/such/route', { key: null }), 404],
      ['a path that is not UTF-8', () => t.http.get('/api/projects/%ff/', { key: null }), 400],
      ['a capture', capture, 200],
      ['a flags request', () => t.http.post('/flags/?v=2', { token: t.keys.projectApiKey, distinct_id: 'd' }, { key: null }), 200],
      ['/metrics', () => t.http.get('/metrics', { key: TEST_METRICS_TOKEN }), 200],
    ])('sends nosniff and refuses framing on %s', async (_label, send, status) => {
      const res = await send();
      expect({ status: res.status, headers: securityHeaders(res.headers) }).toEqual({ status, headers: FRAMING_AND_SNIFFING });
    });

    it.each<[string, () => Promise<{ status: number; headers: Headers }>, number]>([
      ['a reply', () => t.http.get('/api/users/@me/'), 200],
      ['a 401', () => t.http.get('/api/projects/@current/', { key: null }), 401],
      ['a 403', () => t.http.get('/api/projects/@current/', { key: narrowKey }), 403],
      ['a 404', () => t.http.get('/api/projects/987654/'), 404],
      ['a 400', () => t.http.request('POST', '/api/projects/@current/feature_flags/', { raw: '{', headers: { 'content-type': 'application/json' } }), 400],
    ])('forbids caching %s of a personal-key route', async (_label, send, status) => {
      const res = await send();
      expect([res.status, res.headers.get('cache-control')]).toEqual([status, 'no-store']);
    });

    it('leaves the caching of SDK replies as it was: none said on capture and flags, a minute on remote config', async () => {
      const flags = await t.http.post('/flags/?v=2', { token: t.keys.projectApiKey, distinct_id: 'd' }, { key: null });
      const config = await t.http.get(`/array/${t.keys.projectApiKey}/config`, { key: null });
      expect([(await capture()).headers.get('cache-control'), flags.headers.get('cache-control'), config.headers.get('cache-control')]).toEqual([null, null, 'public, max-age=60']);
    });
  });
});
