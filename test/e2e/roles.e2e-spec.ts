import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { startTestApp, TestApp } from '../support/test-app';

const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });
const ADMIN_ONLY = denied('You need to have admin level or higher.');

interface Member {
  key: string;
  id: number;
  uuid: string;
}

describe('Roles and feature-flag role access', () => {
  let t: TestApp;
  let member: Member;
  let other: Member;
  let flags: string;
  const roles = '/api/organizations/@current/roles';

  async function addUser(email: string, level: MembershipLevel): Promise<Member> {
    const provisioning = t.app.get(ProvisioningService);
    const user = await provisioning.createUser({ email, level });
    const key = await provisioning.createPersonalKey({ email, label: email, scopes: ['*'], projectIds: null });
    return { key, id: user.id, uuid: user.uuid };
  }

  beforeAll(async () => {
    t = await startTestApp();
    flags = `/api/projects/${t.keys.projectId}/feature_flags`;
    member = await addUser('member@example.com', MembershipLevel.Member);
    other = await addUser('other@example.com', MembershipLevel.Member);
  });
  afterAll(() => t.close());

  describe('roles', () => {
    it('creates, reads, renames and deletes a role as an admin', async () => {
      const created = await t.http.post(`${roles}/`, { name: 'Engineering', feature_flags_access_level: 21 });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Engineering',
        feature_flags_access_level: 37, // the posted level is ignored on create, as in PostHog
        created_at: expect.any(String),
        created_by: expect.objectContaining({ email: t.keys.email }),
        members: [],
        associated_flags: [],
      });
      const id = created.body.id;
      expect((await t.http.get(`${roles}/${id}/`)).body).toEqual(created.body);
      const patched = await t.http.patch(`${roles}/${id}/`, { name: 'Platform', feature_flags_access_level: 21 });
      expect(patched.body).toMatchObject({ name: 'Platform', feature_flags_access_level: 21 });
      const list = await t.http.get(`${roles}/`);
      expect(list.body).toMatchObject({ count: 1, next: null, previous: null, results: [patched.body] });
      const removed = await t.http.delete(`${roles}/${id}/`);
      expect(removed.status).toBe(204);
      expect(removed.text).toBe('');
      expect((await t.http.get(`${roles}/${id}/`)).status).toBe(404);
    });

    it('refuses a duplicate name in any case and a level other than 21 or 37', async () => {
      const role = await t.http.post(`${roles}/`, { name: 'Design' });
      const duplicate = await t.http.post(`${roles}/`, { name: 'design' });
      expect(duplicate.status).toBe(400);
      expect(duplicate.body).toEqual({ type: 'validation_error', code: 'unique', detail: 'There is already a role with this name.', attr: 'name' });
      const badLevel = await t.http.patch(`${roles}/${role.body.id}/`, { feature_flags_access_level: 30 });
      expect(badLevel.body).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: '"30" is not a valid choice.', attr: 'feature_flags_access_level' });
      expect((await t.http.post(`${roles}/`, {})).body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'name' });
      await t.http.delete(`${roles}/${role.body.id}/`);
    });

    it('lets members read roles but only admins write them', async () => {
      const role = await t.http.post(`${roles}/`, { name: 'Readable' });
      expect((await t.http.get(`${roles}/`, { key: member.key })).status).toBe(200);
      for (const res of [
        await t.http.post(`${roles}/`, { name: 'Mine' }, { key: member.key }),
        await t.http.patch(`${roles}/${role.body.id}/`, { name: 'Mine' }, { key: member.key }),
        await t.http.delete(`${roles}/${role.body.id}/`, { key: member.key }),
        await t.http.post(`${roles}/${role.body.id}/role_memberships/`, { user_uuid: member.uuid }, { key: member.key }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(ADMIN_ONLY);
      }
      await t.http.delete(`${roles}/${role.body.id}/`);
    });

    it('answers 404 for an organization the caller does not belong to', async () => {
      const res = await t.http.get('/api/organizations/00000000-0000-0000-0000-000000000000/roles/');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Organization not found.', attr: null });
    });

    it('starts new roles at the organization default flag access level', async () => {
      const access = await t.http.post('/api/organizations/@current/resource_access/', { resource: 'feature flags', access_level: 21 });
      expect(access.status).toBe(201);
      expect(access.body).toMatchObject({ resource: 'feature flags', access_level: 21 });
      const duplicate = await t.http.post('/api/organizations/@current/resource_access/', { resource: 'feature flags' });
      expect(duplicate.body).toEqual({ type: 'validation_error', code: 'unique', detail: 'There is already an access level for this resource.', attr: 'resource' });
      const role = await t.http.post(`${roles}/`, { name: 'Viewers' });
      expect(role.body.feature_flags_access_level).toBe(21);
      expect((await t.http.delete(`/api/organizations/@current/resource_access/${access.body.id}/`)).status).toBe(204);
      await t.http.delete(`${roles}/${role.body.id}/`);
    });
  });

  describe('role memberships', () => {
    it('adds, lists and removes members with PostHog errors', async () => {
      const role = await t.http.post(`${roles}/`, { name: 'Members test' });
      const path = `${roles}/${role.body.id}/role_memberships/`;
      const added = await t.http.post(path, { user_uuid: member.uuid });
      expect(added.status).toBe(201);
      expect(added.body).toEqual({
        id: expect.any(String),
        role_id: role.body.id,
        user: expect.objectContaining({ uuid: member.uuid, email: 'member@example.com' }),
        joined_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect((await t.http.post(path, { user_uuid: member.uuid })).body).toEqual({
        type: 'validation_error', code: 'invalid_input', detail: 'User is already part of the role.', attr: null,
      });
      expect((await t.http.post(path, { user_uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({
        type: 'validation_error', code: 'invalid_input', detail: 'User does not exist.', attr: null,
      });
      expect((await t.http.post(path, { user_uuid: 'nope' })).body).toEqual({
        type: 'validation_error', code: 'invalid_input', detail: 'Must be a valid UUID.', attr: 'user_uuid',
      });
      expect((await t.http.get(path)).body).toMatchObject({ count: 1, results: [added.body] });
      expect((await t.http.get(`${roles}/${role.body.id}/`)).body.members).toEqual([added.body]);
      expect((await t.http.delete(`${path}${added.body.id}/`)).status).toBe(204);
      expect((await t.http.get(path)).body.count).toBe(0);
      await t.http.delete(`${roles}/${role.body.id}/`);
    });
  });

  describe('flag role access', () => {
    let accessLevelId: number;

    beforeAll(async () => {
      // Flags are view-only by default in this organization from here on.
      const access = await t.http.post('/api/organizations/@current/resource_access/', { resource: 'feature flags', access_level: 21 });
      accessLevelId = access.body.id;
    });
    afterAll(async () => {
      await t.http.delete(`/api/organizations/@current/resource_access/${accessLevelId}/`);
    });

    it("follows PostHog's permission matrix for flags", async () => {
      const flag = await t.http.post(`${flags}/`, { key: 'matrix-flag' });
      const path = `${flags}/${flag.body.id}/role_access/`;
      const role = await t.http.post(`${roles}/`, { name: 'Matrix' });
      // A member who did not create the flag and has no roles.
      const refused = await t.http.post(path, { role_id: role.body.id }, { key: member.key });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(denied("You can't edit roles for this feature flag."));
      // The creator may.
      const own = await t.http.post(`${flags}/`, { key: 'own-flag' }, { key: member.key });
      expect((await t.http.post(`${flags}/${own.body.id}/role_access/`, { role_id: role.body.id }, { key: member.key })).status).toBe(201);
      // An admin may.
      const granted = await t.http.post(path, { role_id: role.body.id });
      expect(granted.status).toBe(201);
      // A member with an edit role (37) may, for someone else's flag.
      const editors = await t.http.post(`${roles}/`, { name: 'Editors' });
      await t.http.patch(`${roles}/${editors.body.id}/`, { feature_flags_access_level: 37 });
      await t.http.post(`${roles}/${editors.body.id}/role_memberships/`, { user_uuid: other.uuid });
      const viaRole = await t.http.post(path, { role_id: editors.body.id }, { key: other.key });
      expect(viaRole.status).toBe(201);
      expect((await t.http.delete(`${path}${viaRole.body.id}/`, { key: member.key })).status).toBe(403);
      expect((await t.http.delete(`${path}${viaRole.body.id}/`, { key: other.key })).status).toBe(204);
    });

    it('embeds the flag and the role, and lists grants with the role associated_flags', async () => {
      const flag = await t.http.post(`${flags}/`, { key: 'embedded-flag' });
      const role = await t.http.post(`${roles}/`, { name: 'Embedded' });
      const path = `${flags}/${flag.body.id}/role_access/`;
      const grant = await t.http.post(path, { role_id: role.body.id });
      expect(grant.body).toEqual({
        id: expect.any(Number),
        feature_flag: expect.objectContaining({ id: flag.body.id, key: 'embedded-flag', can_edit: true }),
        role: expect.objectContaining({ id: role.body.id, name: 'Embedded', associated_flags: [{ id: flag.body.id, key: 'embedded-flag' }] }),
        added_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect((await t.http.get(`${path}${grant.body.id}/`)).body).toEqual(grant.body);
      expect((await t.http.get(path)).body).toEqual({ count: 1, next: null, previous: null, results: [grant.body] });
      const again = await t.http.post(path, { role_id: role.body.id });
      expect(again.body).toEqual({ type: 'validation_error', code: 'unique', detail: 'The fields role, feature_flag must make a unique set.', attr: null });
      const unknownRole = await t.http.post(path, { role_id: 'not-a-role' });
      expect(unknownRole.body).toEqual({ type: 'validation_error', code: 'does_not_exist', detail: 'Invalid pk "not-a-role" - object does not exist.', attr: 'role_id' });
      expect((await t.http.post(path, {})).body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'role_id' });
      const missingFlag = await t.http.get(`${flags}/999999/role_access/`);
      expect(missingFlag.status).toBe(404);
      expect(missingFlag.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Feature flag not found.', attr: null });
    });

    it('turns can_edit on for a view-only member once their role is granted the flag', async () => {
      const flag = await t.http.post(`${flags}/`, { key: 'guarded-flag' });
      const read = async () => (await t.http.get(`${flags}/${flag.body.id}/`, { key: member.key })).body.can_edit;
      expect(await read()).toBe(false);
      const patch = await t.http.patch(`${flags}/${flag.body.id}/`, { name: 'by member' }, { key: member.key });
      expect(patch.status).toBe(403);
      expect(patch.body).toEqual(denied("You don't have edit permissions for this feature flag."));
      const role = await t.http.post(`${roles}/`, { name: 'Guardians' });
      await t.http.patch(`${roles}/${role.body.id}/`, { feature_flags_access_level: 21 });
      await t.http.post(`${roles}/${role.body.id}/role_memberships/`, { user_uuid: member.uuid });
      expect(await read()).toBe(false);
      await t.http.post(`${flags}/${flag.body.id}/role_access/`, { role_id: role.body.id });
      expect(await read()).toBe(true);
      const list = await t.http.get(`${flags}/?limit=1000`, { key: member.key });
      const byKey = Object.fromEntries(list.body.results.map((f: { key: string; can_edit: boolean }) => [f.key, f.can_edit]));
      expect(byKey['guarded-flag']).toBe(true);
      expect(byKey['matrix-flag']).toBe(false);
      expect(byKey['own-flag']).toBe(true);
      expect((await t.http.patch(`${flags}/${flag.body.id}/`, { name: 'by member' }, { key: member.key })).status).toBe(200);
      // Admins always can.
      expect((await t.http.get(`${flags}/${flag.body.id}/`)).body.can_edit).toBe(true);
    });
  });
});
