import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../../common/auth/principal';
import type { OrganizationAccess } from '../organizations/organization-access';
import { ApiError } from '../../common/errors/api-error';
import { buildPage, Page, PageRequest } from '../../common/http/pagination';
import { parseId } from '../../common/validation/patterns';
import { onUniqueViolation } from '../../database/query-errors';
import { FlagAccessLevel } from './flag-permissions';
import type { CreateResourceAccessDto, ResourceAccessDto, UpdateResourceAccessDto } from './dto/role.dto';
import { ResourceAccessRepository } from './resource-access.repository';
import { resourceAccessJson } from './role.presenter';
import { requireOrganizationAdmin } from './roles.service';


function duplicateResource(): ApiError {
  return ApiError.validation('There is already an access level for this resource.', 'resource', 'unique');
}

/** Organization-wide default access levels per resource; "feature flags" drives `can_edit`. */
@Injectable()
export class ResourceAccessService {
  constructor(private readonly access: ResourceAccessRepository) {}

  async page(organization: OrganizationAccess, page: PageRequest, url: URL): Promise<Page<ResourceAccessDto>> {
    const { rows, count } = await this.access.page(organization.organizationId, page.limit, page.offset);
    return buildPage(url, page, rows.map(resourceAccessJson), count);
  }

  async describe(organization: OrganizationAccess, rawId: string): Promise<ResourceAccessDto> {
    const id = parseId(rawId);
    const row = id === null ? null : await this.access.find(organization.organizationId, id);
    if (!row) throw ApiError.notFound();
    return resourceAccessJson(row);
  }

  async create(principal: UserPrincipal, organization: OrganizationAccess, dto: CreateResourceAccessDto): Promise<ResourceAccessDto> {
    requireOrganizationAdmin(organization);
    const level = dto.access_level ?? FlagAccessLevel.CanAlwaysEdit;
    const id = await this.uniqueResource(() => this.access.insert(organization.organizationId, dto.resource, level, principal.user.id));
    return this.describe(organization, String(id));
  }

  async update(organization: OrganizationAccess, rawId: string, dto: UpdateResourceAccessDto): Promise<ResourceAccessDto> {
    requireOrganizationAdmin(organization);
    const { id } = await this.describe(organization, rawId);
    await this.uniqueResource(() => this.access.update(organization.organizationId, id, { resource: dto.resource, level: dto.access_level }));
    return this.describe(organization, rawId);
  }

  async delete(organization: OrganizationAccess, rawId: string): Promise<void> {
    requireOrganizationAdmin(organization);
    const id = parseId(rawId);
    if (id === null || !(await this.access.delete(organization.organizationId, id))) throw ApiError.notFound();
  }

  private uniqueResource<T>(write: () => Promise<T>): Promise<T> {
    return onUniqueViolation(write, 'organization_resource_access_key', duplicateResource);
  }
}
