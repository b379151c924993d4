import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { EventQueriesService } from '../../src/modules/events/event-queries.service';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { sendJson } from '../support/capture-client';
import type { HttpResponse } from '../support/http-client';
import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Every route that takes a personal key, found in the application's own route table (so a route added later is
 * walked too), asked by callers who must not get in: another organization's key, a key limited to another project, a
 * key without the route's scope, a project key, no key. Nothing of the victim may come back, and nothing may change.
 */

interface Route {
  method: string;
  url: string;
}

interface Victim {
  projectId: number;
  organizationId: string;
  token: string;
  otherToken: string;
  userUuid: string;
  ids: Record<string, string>;
}

const RESTRICTED_OUTSIDE = 'API key with scoped projects are only supported on project-based views. Use a key without a project restriction for this route.';
const notScopedTo = (id: number) => `API key does not have access to the requested project: ID ${id}.`;
/** Routes under /api/ that anyone may read: the API's own documentation. */
/** Routes under /api/ that take no key: the docs, and sign-in and sign-out (which the sessions test covers). */
const PUBLIC_API = /^\/api\/(docs|schema|login|logout)(\/|$)/;
/** The routes that show a key limited to some projects those projects (so integrations can test a key). */
const USER_ROUTES = new Set(['/api/users/:uuid', '/api/user']);

/** The victim's value for each route parameter, by the resource the route names; a new kind fails here, loudly. */
function paramValue(route: Route, name: string, victim: Victim): string {
  const before = route.url.slice(0, route.url.indexOf(`:${name}`));
  const resource = before.split('/').filter(Boolean).pop() ?? '';
  if (name === 'project_id' || (resource === 'projects' && name === 'id')) return String(victim.projectId);
  if (name === 'organization_id') return victim.organizationId;
  if (name === 'uuid') return victim.userUuid;
  if (name === 'token') return victim.token;
  if (name === 'parent_lookup_feature_flag_id') return victim.ids.feature_flags;
  if (name === 'role_id') return victim.ids.roles;
  const value = victim.ids[resource];
  if (value === undefined) throw new Error(`no victim value for :${name} of ${route.method} ${route.url}: add one to the test's seed`);
  return value;
}

function pathOf(route: Route, victim: Victim): string {
  const filled = route.url.replace(/:([A-Za-z_]+)/g, (_, name: string) => paramValue(route, name, victim)).replace('*', 'x');
  return `${filled}?token=${victim.token}`;
}

const hasParam = (route: Route) => route.url.includes(':');

describe('Access to every personal-key route', () => {
  let t: TestApp;
  const logs: Array<Record<string, unknown>> = [];
  let provisioning: ProvisioningService;
  let victim: Victim;
  let routes: Route[];
  const keys: Record<'attacker' | 'restricted' | 'unscoped', string> = { attacker: '', restricted: '', unscoped: '' };
  /** What only the victim's project A holds: no foreign caller may see any of it. */
  let projectMarkers: string[];
  /** The victim's organization-level data, which another organization must not see either. */
  let organizationMarkers: string[];
  let before: unknown;

  const call = (route: Route, key: string | null, headers: Record<string, string> = {}) =>
    t.http.request(route.method, pathOf(route, victim), { key, headers, json: ['GET', 'DELETE'].includes(route.method) ? undefined : {} });

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all', AUTH_FAILED_ATTEMPTS_PER_MINUTE: '0' }, logs });
    provisioning = t.app.get(ProvisioningService);
    victim = await seedVictim(t, provisioning);
    projectMarkers = [victim.token, 'victim_secret_event', 'victim_secret_prop', 'victim.person@example.com', 'victim-distinct-1', 'victim-secret-flag', 'Victim secret cohort'];
    organizationMarkers = [victim.otherToken, victim.organizationId, victim.userUuid, 'Victim secret role', 'admin@localhost'];
    keys.attacker = await attackerKey(provisioning);
    keys.restricted = await provisioning.createPersonalKey({ email: 'admin@localhost', label: 'limited', scopes: ['*'], projectIds: [(await projectOf(t, victim.otherToken))] });
    keys.unscoped = await provisioning.createPersonalKey({ email: 'admin@localhost', label: 'plugins', scopes: ['plugin:read'], projectIds: null });
    routes = await personalKeyRoutes(t, victim);
    before = await victimState(t);
  });
  afterAll(() => t.close());

  it('walks every route of the route table that takes a personal key; under /api/ only the docs and sign-in take none', async () => {
    const all = t.app.getHttpAdapter().getInstance().routeTable.list();
    const api = all.filter((route) => route.url.startsWith('/api/'));
    const walked = new Set(routes.map((route) => `${route.method} ${route.url}`));
    expect(api.filter((route) => !walked.has(`${route.method} ${route.url}`) && !PUBLIC_API.test(route.url))).toEqual([]);
    expect(routes.length).toBeGreaterThan(80);
    expect(walked).toContain('GET /flags/definitions');
  });

  it('answers 401 to a project key sent where a personal key is wanted', async () => {
    for (const route of routes) {
      const res = await call(route, victim.token);
      expect({ route, status: res.status, code: res.body.code }).toEqual({ route, status: 401, code: 'authentication_failed' });
    }
  });

  it("refuses another organization's key wherever the route names the victim's data, and shows it nothing anywhere", async () => {
    for (const route of routes) {
      const res = await call(route, keys.attacker);
      // A route that names the victim's project, organization, user or one of their resources refuses; one that names
      // nothing acts on the attacker's own organization.
      const refused = hasParam(route) ? [403, 404].includes(res.status) : res.status < 500;
      expect({ route, status: res.status, refused }).toEqual({ route, status: res.status, refused: true });
      expectNoneOf(res, [...projectMarkers, ...organizationMarkers], route);
    }
  });

  it('refuses a key limited to another project on every route, but lets it read its own user without project A', async () => {
    for (const route of routes) {
      const res = await call(route, keys.restricted);
      if (USER_ROUTES.has(route.url)) {
        expect({ route, status: res.status }).toEqual({ route, status: 200 });
        expect(res.text).toContain(victim.otherToken);
      } else if (/:project_id|^\/api\/projects\/:id/.test(route.url)) {
        expect({ route, status: res.status, body: res.body }).toEqual({ route, status: 403, body: denied(notScopedTo(victim.projectId)) });
      } else {
        const known = [RESTRICTED_OUTSIDE, notScopedTo(victim.projectId)].includes(res.body.detail);
        expect({ route, status: res.status, known }).toEqual({ route, status: 403, known: true });
      }
      expectNoneOf(res, projectMarkers, route);
    }
  });

  it("refuses a key without the route's scope on every route, naming the scope", async () => {
    for (const route of routes) {
      const res = await call(route, keys.unscoped);
      expect({ route, status: res.status, detail: res.body.detail }).toEqual({ route, status: 403, detail: expect.stringMatching(/^API key missing required scope '[a-z_]+:(read|write)'$/) });
    }
  });

  it("left the victim's data as it was", async () => {
    expect(await victimState(t)).toEqual(before);
  });

  it('writes no key, e-mail or distinct id to the log, on failed keys, captures, flags and a failed request', async () => {
    await t.http.get(`/api/users/@me/?personal_api_key=phx_${'q'.repeat(43)}`, { key: null });
    await t.http.post('/api/projects/', { personal_api_key: `phx_${'b'.repeat(43)}` }, { key: null });
    await sendJson(t, '/flags/?v=2', { token: victim.token, distinct_id: 'victim-distinct-1', person_properties: { email: 'victim.person@example.com' } });
    await sendJson(t, '/flags/?v=2', { api_key: t.keys.personalApiKey, project_id: victim.projectId, distinct_id: 'victim-distinct-1' });
    // An unexpected failure is logged with its route: the URL's query may name a key or a distinct id.
    jest.spyOn(t.app.get(EventQueriesService), 'page').mockRejectedValueOnce(new Error('planted failure'));
    const failed = await t.http.get(`/api/projects/${victim.projectId}/events/?distinct_id=victim-distinct-1&personal_api_key=${t.keys.personalApiKey}`, { key: null });
    expect(failed.status).toBe(500);
    const failure = logs.find((line) => line.msg === 'request failed');
    expect(failure).toMatchObject({ route: '/api/projects/:project_id/events', method: 'GET' });
    const secrets = [t.keys.personalApiKey, ...Object.values(keys), victim.token, victim.otherToken, 'victim.person@example.com', 'victim-distinct-1', 'phx_qqqq', 'phx_bbbb'];
    const text = logs.map((line) => JSON.stringify(line)).join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) expect({ secret, found: text.includes(secret.replace(/^ph[cx]_/, '')) }).toEqual({ secret, found: false });
  });
});

const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });

function expectNoneOf(res: HttpResponse, markers: string[], route: Route): void {
  const leaked = markers.filter((marker) => res.text.includes(marker));
  expect({ route, leaked }).toEqual({ route, leaked: [] });
}

/** Routes whose answer without a key is "credentials were not provided": the personal-key routes. */
async function personalKeyRoutes(t: TestApp, victim: Victim): Promise<Route[]> {
  const found: Route[] = [];
  for (const route of t.app.getHttpAdapter().getInstance().routeTable.list()) {
    const res = await t.http.request(route.method, pathOf(route, victim), { key: null });
    if (res.status === 401 && res.body.code === 'not_authenticated') found.push(route);
  }
  return found;
}

async function projectOf(t: TestApp, token: string): Promise<number> {
  const [row] = await t.sql<{ id: number }>('SELECT id FROM project WHERE api_token = $1', [token]);
  return row.id;
}

/** A user of another organization only (made through a throwaway founder, since new users join the first one). */
async function attackerKey(provisioning: ProvisioningService): Promise<string> {
  await provisioning.createUser({ email: 'founder@attacker.test', level: MembershipLevel.Member });
  const organization = await provisioning.createOrganization('Attacker Org', 'founder@attacker.test');
  await provisioning.createUser({ email: 'attacker@attacker.test', level: MembershipLevel.Owner, organizationId: organization.organizationId });
  return provisioning.createPersonalKey({ email: 'attacker@attacker.test', label: 'attacker', scopes: ['*'], projectIds: null });
}

/** Project A (the bootstrap project) with one of everything a route can name, and a second project B. */
async function seedVictim(t: TestApp, provisioning: ProvisioningService): Promise<Victim> {
  const api = `/api/projects/${t.keys.projectId}`;
  await ingestBatch(t, t.keys.projectApiKey, [
    { event: 'victim_secret_event', distinct_id: 'victim-distinct-1', properties: { victim_secret_prop: 'x', $set: { email: 'victim.person@example.com' } } },
  ]);
  const me = (await t.http.get('/api/users/@me/')).body;
  const person = (await t.http.get(`${api}/persons/?distinct_id=victim-distinct-1`)).body.results[0];
  const event = (await t.http.get(`${api}/events/`)).body.results[0];
  const definition = (await t.http.get(`${api}/event_definitions/`)).body.results.find((d: { name: string }) => d.name === 'victim_secret_event');
  const flag = (await t.http.post(`${api}/feature_flags/`, { key: 'victim-secret-flag', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } })).body;
  const cohort = (await t.http.post(`${api}/cohorts/`, { name: 'Victim secret cohort', is_static: true })).body;
  const action = (await t.http.post(`${api}/actions/`, { name: 'Victim secret action', steps: [{ event: 'victim_secret_event' }] })).body;
  const dashboard = (await t.http.post(`${api}/dashboards/`, { name: 'Victim secret dashboard' })).body;
  const insight = (await t.http.post(`${api}/insights/`, { name: 'Victim secret insight', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'victim_secret_event' }] } } })).body;
  const role = (await t.http.post('/api/organizations/@current/roles/', { name: 'Victim secret role' })).body;
  await t.http.post(`/api/organizations/@current/roles/${role.id}/role_memberships/`, { user_uuid: me.uuid });
  const membership = (await t.http.get(`/api/organizations/@current/roles/${role.id}/role_memberships/`)).body.results[0];
  const access = (await t.http.post('/api/organizations/@current/resource_access/', { resource: 'feature flags', access_level: 37 })).body;
  const roleAccess = (await t.http.post(`${api}/feature_flags/${flag.id}/role_access/`, { role_id: role.id })).body;
  const other = await provisioning.createProject('Victim second project', me.organization.id);
  const ids = { persons: person.id, events: event.id, event_definitions: definition.id, feature_flags: flag.id, cohorts: cohort.id, actions: action.id, insights: insight.id, dashboards: dashboard.id, roles: role.id, role_memberships: membership.id, resource_access: access.id, role_access: roleAccess.id };
  for (const [name, id] of Object.entries(ids)) if (id === undefined) throw new Error(`seeding ${name} failed`);
  return {
    projectId: t.keys.projectId,
    organizationId: me.organization.id,
    token: t.keys.projectApiKey,
    otherToken: other.apiToken,
    userUuid: me.uuid,
    ids: Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, String(id)])),
  };
}

/** What the victim's own key reads of its data, to compare before and after the walk. */
async function victimState(t: TestApp): Promise<unknown> {
  const api = `/api/projects/${t.keys.projectId}`;
  const paths = [
    '/api/projects/', `${api}/`, `${api}/feature_flags/`, `${api}/persons/`, `${api}/cohorts/`, `${api}/actions/`, `${api}/insights/?basic=true`, `${api}/dashboards/`, `${api}/events/`, `${api}/event_definitions/`,
    '/api/organizations/@current/roles/', '/api/organizations/@current/resource_access/',
  ];
  const state: Record<string, unknown> = {};
  for (const path of paths) state[path] = (await t.http.get(path)).body;
  return state;
}
