import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentOrganization, OrganizationAccess } from '../organizations/organization-access';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import { CreateResourceAccessDto, ResourceAccessDto, ResourceAccessPageDto, UpdateResourceAccessDto } from './dto/role.dto';
import { ResourceAccessService } from './resource-access.service';

const ORG = { organizationParam: 'organization_id' };

/** Organization-wide default access per resource (e.g. flags view-only unless a role grants edit). */
@ApiTags('roles')
@ApiBearerAuth()
@Controller('api/organizations/:organization_id/resource_access')
export class ResourceAccessController {
  constructor(private readonly access: ResourceAccessService) {}

  @Get()
  @PersonalKeyAuth('organization:read', ORG)
  @ApiOkResponse({ type: ResourceAccessPageDto })
  list(@CurrentOrganization() org: OrganizationAccess, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.access.page(org, parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('organization:write', ORG)
  @ApiOkResponse({ type: ResourceAccessDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentOrganization() org: OrganizationAccess, @Body() body: CreateResourceAccessDto) {
    return this.access.create(principal, org, body);
  }

  @Get(':id')
  @PersonalKeyAuth('organization:read', ORG)
  @ApiOkResponse({ type: ResourceAccessDto })
  retrieve(@CurrentOrganization() org: OrganizationAccess, @Param('id') id: string) {
    return this.access.describe(org, id);
  }

  @Patch(':id')
  @PersonalKeyAuth('organization:write', ORG)
  @ApiOkResponse({ type: ResourceAccessDto })
  update(@CurrentOrganization() org: OrganizationAccess, @Param('id') id: string, @Body() body: UpdateResourceAccessDto) {
    return this.access.update(org, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @PersonalKeyAuth('organization:write', ORG)
  async remove(@CurrentOrganization() org: OrganizationAccess, @Param('id') id: string): Promise<void> {
    await this.access.delete(org, id);
  }
}
