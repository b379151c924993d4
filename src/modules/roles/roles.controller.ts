import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentOrganization, OrganizationAccess } from '../organizations/organization-access';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import { CreateRoleDto, RoleDto, RolePageDto, UpdateRoleDto } from './dto/role.dto';
import { RolesService } from './roles.service';

const ORG = { organizationParam: 'organization_id' };

@ApiTags('roles')
@ApiBearerAuth()
@Controller('api/organizations/:organization_id/roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @PersonalKeyAuth('organization:read', ORG)
  @ApiOkResponse({ type: RolePageDto })
  list(@CurrentOrganization() access: OrganizationAccess, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.roles.page(access, parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('organization:write', ORG)
  @ApiOkResponse({ type: RoleDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentOrganization() access: OrganizationAccess, @Body() body: CreateRoleDto) {
    return this.roles.create(principal, access, body);
  }

  @Get(':id')
  @PersonalKeyAuth('organization:read', ORG)
  @ApiOkResponse({ type: RoleDto })
  retrieve(@CurrentOrganization() access: OrganizationAccess, @Param('id') id: string) {
    return this.roles.describe(access.organizationId, id);
  }

  @Patch(':id')
  @PersonalKeyAuth('organization:write', ORG)
  @ApiOkResponse({ type: RoleDto })
  update(@CurrentOrganization() access: OrganizationAccess, @Param('id') id: string, @Body() body: UpdateRoleDto) {
    return this.roles.update(access, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @PersonalKeyAuth('organization:write', ORG)
  async remove(@CurrentOrganization() access: OrganizationAccess, @Param('id') id: string): Promise<void> {
    await this.roles.delete(access, id);
  }
}
