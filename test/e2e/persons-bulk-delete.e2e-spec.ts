import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr });
const NO_ERRORS = { events_queued_for_deletion: false, recordings_queued_for_deletion: false, deletion_errors: [] };
const UNKNOWN_UUID = '018f0000-0000-7000-8000-0000000fffff';

/** `POST persons/bulk_delete/` over persons made by the real capture path. */
describe('Persons API: bulk_delete', () => {
  let t: TestApp;
  let base: string;
  let projectB: number;
  let tokenB: string;
  let keyB: string;
  const send = (token: string, batch: Array<Record<string, unknown>>) => ingestBatch(t, token, batch);
  /** A's persons and events of these distinct ids, as stored. */
  const personOf = async (distinctId: string, projectId = t.keys.projectId) =>
    (
      await t.sql<{ id: string; uuid: string }>(
        'SELECT p.id, p.uuid FROM person p JOIN person_distinct_id d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = $2',
        [projectId, distinctId],
      )
    )[0];
  const eventCount = async (distinctIds: string[], projectId = t.keys.projectId) =>
    (await t.sql<{ n: number }>('SELECT count(*)::int AS n FROM event WHERE project_id = $1 AND distinct_id = ANY($2)', [projectId, distinctIds]))[0].n;
  const bulkDelete = (body: unknown, options: { key?: string; path?: string } = {}) =>
    t.http.post(options.path ?? `${base}/bulk_delete/`, body, options.key ? { key: options.key } : {});
  /** Persons and events of every project, to show that a refused or foreign request changed nothing. */
  const snapshot = () => t.sql('SELECT (SELECT count(*)::int FROM person) AS persons, (SELECT count(*)::int FROM event) AS events');
  /** Each project gets the same distinct ids, so a query that forgot the project would touch B too. */
  const twoEventsEach = (ids: string[], marker: string) =>
    ids.flatMap((id) => [
      { event: 'seen', distinct_id: id, properties: { marker, $set: { email: `${id}@${marker}.example` } } },
      { event: 'clicked', distinct_id: id, properties: { marker } },
    ]);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}/persons`;
    const provisioning = t.app.get(ProvisioningService);
    await provisioning.createUser({ email: 'b-owner@example.com', level: MembershipLevel.Member });
    const other = await provisioning.createOrganization('Project B org', 'b-owner@example.com');
    projectB = other.project.id;
    tokenB = other.project.apiToken;
    keyB = await provisioning.createPersonalKey({ email: 'b-owner@example.com', label: 'b', scopes: ['*'], projectIds: [projectB] });
    const ids = ['ann', 'ann-anon', 'ben', 'cy', 'dee', 'eve', 'fay', 'gus', 'hal'];
    await send(t.keys.projectApiKey, twoEventsEach(ids, 'a'));
    await send(tokenB, twoEventsEach(ids, 'b'));
    // ann and ann-anon become one person with two distinct ids (in A only).
    await send(t.keys.projectApiKey, [{ event: '$identify', distinct_id: 'ann', properties: { $anon_distinct_id: 'ann-anon' } }]);
  });
  afterAll(() => t.close());

  it('deletes by distinct id the persons and, with delete_events, the events of all their distinct ids; B keeps its own', async () => {
    const ann = await personOf('ann');
    const ben = await personOf('ben');
    const res = await bulkDelete({ distinct_ids: ['ann-anon', 'ben', 'nobody'], delete_events: true });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ persons_found: 2, persons_deleted: 2, events_queued_for_deletion: true, recordings_queued_for_deletion: false, deletion_errors: [] });
    expect(await personOf('ann')).toBeUndefined();
    expect(await personOf('ben')).toBeUndefined();
    // ann was named by her other distinct id: the events of both went.
    expect(await eventCount(['ann', 'ann-anon', 'ben'])).toBe(0);
    expect((await t.http.get(`${base}/${ann.id}/`)).status).toBe(404);
    expect(await eventCount(['ann', 'ann-anon', 'ben'], projectB)).toBe(6);
    expect(await personOf('ben', projectB)).toBeDefined();
    const activity = await t.http.get(`${base}/activity/?limit=100`);
    const deleted = activity.body.results.filter((entry: { activity: string }) => entry.activity === 'deleted');
    expect(deleted.map((entry: { item_id: string }) => entry.item_id).sort()).toEqual([ann.id, ben.id].sort());
    expect(deleted[0]).toMatchObject({ scope: 'Person', user: { email: t.keys.email }, detail: { changes: null } });
  });

  it("deletes by uuid; unknown uuids and project B's persons count as not found and B is untouched", async () => {
    const cy = await personOf('cy');
    const cyOfB = await personOf('cy', projectB);
    const res = await bulkDelete({ ids: [cy.uuid.toUpperCase(), cyOfB.uuid, UNKNOWN_UUID] });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ persons_found: 1, persons_deleted: 1, ...NO_ERRORS });
    expect(await personOf('cy')).toBeUndefined();
    // Without delete_events the events stay.
    expect(await eventCount(['cy'])).toBe(2);
    expect(await personOf('cy', projectB)).toEqual(cyOfB);
    expect(await eventCount(['cy'], projectB)).toBe(2);
  });

  it('keep_person with delete_events deletes only the events; delete_recordings is reported when persons were found', async () => {
    const dee = await personOf('dee');
    const res = await bulkDelete({ distinct_ids: ['dee'], delete_events: true, keep_person: true, delete_recordings: true });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ persons_found: 1, persons_deleted: 0, events_queued_for_deletion: true, recordings_queued_for_deletion: true, deletion_errors: [] });
    expect(await personOf('dee')).toEqual(dee);
    expect(await eventCount(['dee'])).toBe(0);
    expect(await eventCount(['dee'], projectB)).toBe(2);
  });

  it('answers 202 with zero counts when nothing matches', async () => {
    const before = await snapshot();
    const res = await bulkDelete({ ids: [UNKNOWN_UUID], delete_events: true, delete_recordings: true });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ persons_found: 0, persons_deleted: 0, ...NO_ERRORS });
    expect(await snapshot()).toEqual(before);
  });

  it('refuses bad bodies with 400 in the error shape and deletes nothing', async () => {
    const before = await snapshot();
    const eve = await personOf('eve');
    const cases: Array<[unknown, unknown]> = [
      [{ ids: [eve.uuid], distinct_ids: ['eve'] }, invalid('You must provide either distinct_ids or ids, not both')],
      [{}, invalid('You need to specify either distinct_ids or ids')],
      [{ ids: [], distinct_ids: [], delete_events: true }, invalid('You need to specify either distinct_ids or ids')],
      [{ ids: null }, invalid('You need to specify either distinct_ids or ids')],
      [{ ids: Array.from({ length: 1001 }, () => eve.uuid) }, invalid('You can only pass 1000 ids in one call')],
      [{ distinct_ids: Array.from({ length: 1001 }, (_, i) => `d${i}`) }, invalid('You can only pass 1000 distinct_ids in one call')],
      [{ ids: eve.uuid }, invalid('Expected a list of items but got type "str".', 'ids', 'not_a_list')],
      [{ distinct_ids: { eve: true } }, invalid('Expected a list of items but got type "dict".', 'distinct_ids', 'not_a_list')],
      [{ ids: [eve.uuid, 'eve'] }, invalid('Must be a valid UUID.', 'ids__1')],
      [{ ids: [42] }, invalid('Must be a valid UUID.', 'ids__0')],
      [{ distinct_ids: ['eve', 7] }, invalid('Not a valid string.', 'distinct_ids__1')],
      [{ distinct_ids: ['eve'], delete_events: 'true' }, invalid('Must be a valid boolean.', 'delete_events')],
      [{ distinct_ids: ['eve'], keep_person: 1 }, invalid('Must be a valid boolean.', 'keep_person')],
      [{ distinct_ids: ['eve'], delete_recordings: [] }, invalid('Must be a valid boolean.', 'delete_recordings')],
      [['eve'], invalid('Invalid data. Expected a dictionary, but got list.')],
      ['eve', invalid('Invalid data. Expected a dictionary, but got str.')],
      [7, invalid('Invalid data. Expected a dictionary, but got int.')],
      [null, invalid('No data provided', null, 'null')],
    ];
    for (const [body, expected] of cases) {
      const res = await bulkDelete(body);
      expect({ body, status: res.status, reply: res.body }).toEqual({ body, status: 400, reply: expected });
    }
    const broken = await t.http.post(`${base}/bulk_delete/`, undefined, { raw: '{"ids": [', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: null });
    expect(await snapshot()).toEqual(before);
  });

  it('takes 1000 ids in one call', async () => {
    const fay = await personOf('fay');
    const ids = [fay.uuid, ...Array.from({ length: 999 }, (_, i) => `018f0000-0000-7000-8000-${String(i).padStart(12, '0')}`)];
    const res = await bulkDelete({ ids });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ persons_found: 1, persons_deleted: 1, ...NO_ERRORS });
    expect(await personOf('fay')).toBeUndefined();
  });

  it("cannot reach across projects: B's key on A's route and A's key on B's route change nothing", async () => {
    const before = await snapshot();
    const foreign = await bulkDelete({ distinct_ids: ['gus'], delete_events: true }, { key: keyB });
    expect([403, 404]).toContain(foreign.status);
    expect(foreign.body).toMatchObject({ type: expect.any(String), code: expect.any(String), detail: expect.any(String) });
    const intoB = await bulkDelete({ distinct_ids: ['gus'], delete_events: true }, { path: `/api/projects/${projectB}/persons/bulk_delete/` });
    expect([403, 404]).toContain(intoB.status);
    expect(await snapshot()).toEqual(before);
    // B's own key deletes B's gus and leaves A's.
    const own = await bulkDelete({ distinct_ids: ['gus'], delete_events: true }, { key: keyB, path: `/api/projects/${projectB}/persons/bulk_delete/` });
    expect(own.status).toBe(202);
    expect(own.body).toMatchObject({ persons_found: 1, persons_deleted: 1 });
    expect(await personOf('gus', projectB)).toBeUndefined();
    expect(await personOf('gus')).toBeDefined();
    expect(await eventCount(['gus'])).toBe(2);
  });

  it('needs the person:write scope', async () => {
    const readOnly = await t.app.get(ProvisioningService).createPersonalKey({ email: t.keys.email, label: 'read', scopes: ['person:read'], projectIds: null });
    const res = await bulkDelete({ distinct_ids: ['hal'] }, { key: readOnly });
    expect(res.status).toBe(403);
    expect(await personOf('hal')).toBeDefined();
  });
});
