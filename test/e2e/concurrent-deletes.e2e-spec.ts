import { Client } from 'pg';
import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import type { HttpResponse } from '../support/http-client';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A row deleted by another transaction between a route's lookup and its insert. The delete is held open
 * on a second connection, the request is sent, and the delete commits only once the request waits on it:
 * the request must answer as if the row had never been found, never with a foreign key error (500).
 */
describe('Writes that race a delete of what they reference', () => {
  let t: TestApp;
  let other: Client;
  let otherPid: number;
  let project: string;
  const roles = '/api/organizations/@current/roles';

  beforeAll(async () => {
    t = await startTestApp();
    project = `/api/projects/${t.keys.projectId}`;
    other = new Client({ connectionString: t.databaseUrl });
    other.on('error', () => undefined);
    await other.connect();
    otherPid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  });
  afterAll(async () => {
    await other.end();
    await t.close();
  });

  /** Runs `deleteSql` in an open transaction, sends the request, commits once the request is blocked on it. */
  async function raceDelete(deleteSql: string, params: unknown[], request: () => Promise<HttpResponse>): Promise<HttpResponse> {
    await other.query('BEGIN');
    await other.query(deleteSql, params);
    const pending = request();
    let blocked = false;
    for (let i = 0; i < 200 && !blocked; i++) {
      // Only a backend of this file's database waiting on this very delete counts (other files run beside this one).
      const [{ waiting }] = await t.sql<{ waiting: number }>(
        'SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND $1 = ANY(pg_blocking_pids(pid))',
        [otherPid],
      );
      blocked = waiting > 0;
      if (!blocked) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await other.query('COMMIT');
    // The request must really have met the delete halfway, or this test proves nothing.
    expect(blocked).toBe(true);
    return pending;
  }

  it('a role membership for a role deleted meanwhile is 404', async () => {
    const user = await t.app.get(ProvisioningService).createUser({ email: 'racer@example.com', level: MembershipLevel.Member });
    const role = (await t.http.post(`${roles}/`, { name: 'Doomed role' })).body;
    const res = await raceDelete('DELETE FROM role WHERE id = $1', [role.id], () => t.http.post(`${roles}/${role.id}/role_memberships/`, { user_uuid: user.uuid }));
    expect([res.status, res.body.code]).toEqual([404, 'not_found']);
    expect(await t.sql('SELECT 1 FROM role_membership WHERE role_id = $1', [role.id])).toEqual([]);
  });

  it('a flag role access for a role deleted meanwhile is does_not_exist', async () => {
    const flag = (await t.http.post(`${project}/feature_flags/`, { key: 'raced-flag' })).body;
    const role = (await t.http.post(`${roles}/`, { name: 'Doomed grant role' })).body;
    const res = await raceDelete('DELETE FROM role WHERE id = $1', [role.id], () => t.http.post(`${project}/feature_flags/${flag.id}/role_access/`, { role_id: role.id }));
    expect([res.status, res.body.code, res.body.attr]).toEqual([400, 'does_not_exist', 'role_id']);
  });

  it('adding persons to a static cohort finds no person deleted meanwhile', async () => {
    const person = (await t.http.post(`${project}/persons/`, { properties: { email: 'gone@example.com' } })).body;
    const cohort = (await t.http.post(`${project}/cohorts/`, { name: 'Raced', is_static: true })).body;
    const res = await raceDelete('DELETE FROM person WHERE id = $1', [person.id], () =>
      t.http.patch(`${project}/cohorts/${cohort.id}/add_persons_to_static_cohort/`, { person_ids: [person.uuid] }),
    );
    expect([res.status, res.body.detail]).toEqual([400, 'No valid users to add to cohort']);
    expect(await t.sql('SELECT 1 FROM cohort_person WHERE cohort_id = $1', [cohort.id])).toEqual([]);
  });
});
