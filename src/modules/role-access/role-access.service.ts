import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import { featureFlagJson } from '../feature-flags/feature-flag.presenter';
import type { FeatureFlagEntity } from '../feature-flags/feature-flag.entity';
import { FeatureFlagsService } from '../feature-flags/feature-flags.service';
import { canEditFlag, canManageFlagRoleAccess, FlagEditContext } from '../roles/flag-permissions';
import type { ProjectEntity } from '../projects/project.entity';
import type { FlagRoleGrantEntity } from '../roles/flag-role-grant.entity';
import { FlagGrantsService } from '../roles/flag-grants.service';
import { RolesService } from '../roles/roles.service';
import type { RoleAccessDto } from './dto/role-access.dto';

interface FlagInContext {
  flag: FeatureFlagEntity;
  context: FlagEditContext;
}

/** Which roles may edit a view-only flag. */
@Injectable()
export class RoleAccessService {
  constructor(
    private readonly flags: FeatureFlagsService,
    private readonly roles: RolesService,
    private readonly grants: FlagGrantsService,
  ) {}

  async page(principal: UserPrincipal, project: ProjectEntity, flagId: string, page: PageRequest, url: URL): Promise<Page<RoleAccessDto>> {
    const target = await this.load(principal, project, flagId);
    const { rows, count } = await this.grants.page(target.flag.id, page.limit, page.offset);
    return buildPage(url, page, await this.json(project, target, rows), count);
  }

  async describe(principal: UserPrincipal, project: ProjectEntity, flagId: string, id: string): Promise<RoleAccessDto> {
    const target = await this.load(principal, project, flagId);
    const [json] = await this.json(project, target, [await this.requireGrant(target.flag, id)]);
    return json;
  }

  async create(principal: UserPrincipal, project: ProjectEntity, flagId: string, roleId: string): Promise<RoleAccessDto> {
    const target = await this.loadForWrite(principal, project, flagId);
    const grant = await this.grants.grant(project.organizationId, target.flag.id, roleId);
    // The grant may have changed what the caller can do with the flag.
    const [json] = await this.json(project, { flag: target.flag, context: await this.flags.editContext(principal, project) }, [grant]);
    return json;
  }

  async delete(principal: UserPrincipal, project: ProjectEntity, flagId: string, id: string): Promise<void> {
    const target = await this.loadForWrite(principal, project, flagId);
    const grant = await this.requireGrant(target.flag, id);
    await this.grants.revoke(target.flag.id, grant.id);
  }

  private async load(principal: UserPrincipal, project: ProjectEntity, flagId: string): Promise<FlagInContext> {
    const flag = await this.flags.findFlag(project.id, flagId);
    if (!flag) throw ApiError.notFound('Feature flag not found.');
    return { flag, context: await this.flags.editContext(principal, project) };
  }

  private async loadForWrite(principal: UserPrincipal, project: ProjectEntity, flagId: string): Promise<FlagInContext> {
    const target = await this.load(principal, project, flagId);
    if (!canManageFlagRoleAccess(target.context, target.flag)) {
      throw ApiError.permissionDenied("You can't edit roles for this feature flag.");
    }
    return target;
  }

  private async requireGrant(flag: FeatureFlagEntity, id: string): Promise<FlagRoleGrantEntity> {
    const grant = await this.grants.find(flag.id, id);
    if (!grant) throw ApiError.notFound();
    return grant;
  }

  /** Grants of one flag, with the flag and each role embedded; the roles are loaded together. */
  private async json(project: ProjectEntity, target: FlagInContext, grants: FlagRoleGrantEntity[]): Promise<RoleAccessDto[]> {
    const roles = await this.roles.describeMany(project.organizationId, grants.map((grant) => grant.roleId));
    const flag = featureFlagJson(target.flag, canEditFlag(target.context, target.flag));
    return grants.map((grant) => ({
      id: grant.id,
      feature_flag: flag,
      role: roles.get(grant.roleId)!,
      added_at: grant.addedAt.toISOString(),
      updated_at: grant.updatedAt.toISOString(),
    }));
  }
}
