import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../../common/auth/principal';
import type { OrganizationAccess } from '../organizations/organization-access';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import { UUID_PATTERN as UUID } from '../../common/validation/patterns';
import { onUniqueViolation } from '../../database/query-errors';
import { FlagAccessLevel, FlagEditContext } from './flag-permissions';
import { MembershipLevel } from '../organizations/organization-membership.entity';
import { OrganizationsService } from '../organizations/organizations.service';
import { UsersService } from '../users/users.service';
import type { CreateRoleDto, RoleDto, RoleMembershipDto, UpdateRoleDto } from './dto/role.dto';
import { FlagGrantsRepository } from './flag-grants.repository';
import { ResourceAccessRepository } from './resource-access.repository';
import { roleJson, roleMembershipJson } from './role.presenter';
import { RoleEntity } from './role.entity';
import { RolesRepository } from './roles.repository';

const roleNotFound = () => ApiError.notFound();

/** Role writes need an organization admin (PostHog `RolePermissions`). */
export function requireOrganizationAdmin(access: OrganizationAccess): void {
  if (access.level < MembershipLevel.Admin) throw ApiError.permissionDenied('You need to have admin level or higher.');
}

@Injectable()
export class RolesService {
  constructor(
    private readonly roles: RolesRepository,
    private readonly grants: FlagGrantsRepository,
    private readonly resourceAccess: ResourceAccessRepository,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
  ) {}

  async page(access: OrganizationAccess, page: PageRequest, url: URL): Promise<Page<RoleDto>> {
    const { rows, count } = await this.roles.page(access.organizationId, page.limit, page.offset);
    return buildPage(url, page, await this.describeAll(rows), count);
  }

  async describe(organizationId: string, roleId: string): Promise<RoleDto> {
    const [described] = await this.describeAll([await this.requireRole(organizationId, roleId)]);
    return described;
  }

  /** Several roles of one organization at once (members and flags in one query each), by id. */
  async describeMany(organizationId: string, roleIds: string[]): Promise<Map<string, RoleDto>> {
    const roles = await this.roles.findMany(organizationId, [...new Set(roleIds)]);
    return new Map((await this.describeAll(roles)).map((role) => [role.id, role]));
  }

  /** New roles start at the organization's default flag access level, whatever was posted (PostHog). */
  async create(principal: UserPrincipal, access: OrganizationAccess, dto: CreateRoleDto): Promise<RoleDto> {
    requireOrganizationAdmin(access);
    await this.requireFreeName(access.organizationId, dto.name, null);
    const level = (await this.resourceAccess.levelFor(access.organizationId, 'feature flags')) ?? FlagAccessLevel.CanAlwaysEdit;
    const id = await this.uniqueName(() => this.roles.insert(access.organizationId, dto.name, level, principal.user.id));
    return this.describe(access.organizationId, id);
  }

  async update(access: OrganizationAccess, roleId: string, dto: UpdateRoleDto): Promise<RoleDto> {
    requireOrganizationAdmin(access);
    await this.requireRole(access.organizationId, roleId);
    if (dto.name !== undefined) await this.requireFreeName(access.organizationId, dto.name, roleId);
    await this.uniqueName(() => this.roles.update(access.organizationId, roleId, { name: dto.name, level: dto.feature_flags_access_level }));
    return this.describe(access.organizationId, roleId);
  }

  async delete(access: OrganizationAccess, roleId: string): Promise<void> {
    requireOrganizationAdmin(access);
    if (!UUID.test(roleId) || !(await this.roles.delete(access.organizationId, roleId))) throw roleNotFound();
  }

  async membershipPage(access: OrganizationAccess, roleId: string, page: PageRequest, url: URL): Promise<Page<RoleMembershipDto>> {
    await this.requireRole(access.organizationId, roleId);
    const { rows, count } = await this.roles.membershipPage(roleId, page.limit, page.offset);
    return buildPage(url, page, rows.map(roleMembershipJson), count);
  }

  /** Only members of the role's organization can join it; anyone else "does not exist" (PostHog's wording). */
  async addMember(access: OrganizationAccess, roleId: string, userUuid: string): Promise<RoleMembershipDto> {
    requireOrganizationAdmin(access);
    await this.requireRole(access.organizationId, roleId);
    const user = await this.users.findByUuid(userUuid);
    const level = user ? await this.organizations.membershipLevel(user.id, access.organizationId) : null;
    if (!user || level === null) throw ApiError.validation('User does not exist.');
    const duplicate = ApiError.validation('User is already part of the role.');
    if (await this.roles.isMember(roleId, user.id)) throw duplicate;
    const id = await onUniqueViolation(() => this.roles.addMember(roleId, user.id), undefined, () => duplicate);
    if (id === null) throw ApiError.notFound();
    return roleMembershipJson((await this.roles.findMembership(roleId, id))!);
  }

  async removeMember(access: OrganizationAccess, roleId: string, membershipId: string): Promise<void> {
    requireOrganizationAdmin(access);
    await this.requireRole(access.organizationId, roleId);
    if (!UUID.test(membershipId) || !(await this.roles.removeMember(roleId, membershipId))) throw ApiError.notFound();
  }

  /** Everything `can_edit` needs for one user in one organization, in three small queries. */
  async flagEditContext(userId: number, organizationId: string): Promise<FlagEditContext> {
    const [membershipLevel, organizationLevel, roles] = await Promise.all([
      this.organizations.membershipLevel(userId, organizationId),
      this.resourceAccess.levelFor(organizationId, 'feature flags'),
      this.roles.rolesOfUser(organizationId, userId),
    ]);
    const roleLevel = roles.reduce((max, role) => Math.max(max, role.level), 0);
    const grantedFlagIds = await this.grants.grantedFlagIds(roles.map((role) => role.id));
    return { userId, membershipLevel, organizationLevel: organizationLevel ?? FlagAccessLevel.CanAlwaysEdit, roleLevel, grantedFlagIds };
  }

  async requireRole(organizationId: string, roleId: string): Promise<RoleEntity> {
    const role = UUID.test(roleId) ? await this.roles.find(organizationId, roleId) : null;
    if (!role) throw roleNotFound();
    return role;
  }

  findRole(organizationId: string, roleId: string): Promise<RoleEntity | null> {
    return UUID.test(roleId) ? this.roles.find(organizationId, roleId) : Promise.resolve(null);
  }

  private async describeAll(roles: RoleEntity[]): Promise<RoleDto[]> {
    const ids = roles.map((role) => role.id);
    const [members, flags] = await Promise.all([this.roles.membersOf(ids), this.grants.associatedFlags(ids)]);
    return roles.map((role) => roleJson(role, members.filter((m) => m.roleId === role.id), flags.get(role.id) ?? []));
  }

  private async requireFreeName(organizationId: string, name: string, exceptId: string | null): Promise<void> {
    if (await this.roles.nameTaken(organizationId, name, exceptId)) throw duplicateRoleName();
  }

  /** Two concurrent writers can both pass the name check; the unique index decides. */
  private uniqueName<T>(write: () => Promise<T>): Promise<T> {
    return onUniqueViolation(write, 'role_organization_name_key', duplicateRoleName);
  }
}

function duplicateRoleName(): ApiError {
  return ApiError.validation('There is already a role with this name.', 'name', 'unique');
}
