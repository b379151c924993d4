import { optionalUserBasicJson, userBasicJson } from '../users/user-basic.presenter';
import type { AssociatedFlagDto, ResourceAccessDto, RoleDto, RoleMembershipDto } from './dto/role.dto';
import type { OrganizationResourceAccessEntity } from './organization-resource-access.entity';
import type { RoleMembershipEntity } from './role-membership.entity';
import type { RoleEntity } from './role.entity';

export function roleMembershipJson(membership: RoleMembershipEntity): RoleMembershipDto {
  return {
    id: membership.id,
    role_id: membership.roleId,
    user: userBasicJson(membership.user!),
    joined_at: membership.joinedAt.toISOString(),
    updated_at: membership.updatedAt.toISOString(),
  };
}

export function roleJson(role: RoleEntity, members: RoleMembershipEntity[], flags: AssociatedFlagDto[]): RoleDto {
  return {
    id: role.id,
    name: role.name,
    feature_flags_access_level: role.featureFlagsAccessLevel,
    created_at: role.createdAt.toISOString(),
    created_by: optionalUserBasicJson(role.createdBy),
    members: members.map(roleMembershipJson),
    associated_flags: flags,
  };
}

export function resourceAccessJson(access: OrganizationResourceAccessEntity): ResourceAccessDto {
  return {
    id: access.id,
    resource: access.resource,
    access_level: access.accessLevel,
    organization: access.organizationId,
    created_at: access.createdAt.toISOString(),
    updated_at: access.updatedAt.toISOString(),
    created_by: optionalUserBasicJson(access.createdBy),
  };
}
