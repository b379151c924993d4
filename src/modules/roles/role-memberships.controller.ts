import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentOrganization, OrganizationAccess } from '../organizations/organization-access';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import { CreateRoleMembershipDto, RoleMembershipDto, RoleMembershipPageDto } from './dto/role.dto';
import { RolesService } from './roles.service';

const ORG = { organizationParam: 'organization_id' };

@ApiTags('roles')
@ApiBearerAuth()
@Controller('api/organizations/:organization_id/roles/:role_id/role_memberships')
export class RoleMembershipsController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @PersonalKeyAuth('organization:read', ORG)
  @ApiOkResponse({ type: RoleMembershipPageDto })
  list(
    @CurrentOrganization() access: OrganizationAccess,
    @Param('role_id') roleId: string,
    @Query() query: Record<string, unknown>,
    @RequestUrl() url: URL,
  ) {
    return this.roles.membershipPage(access, roleId, parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('organization:write', ORG)
  @ApiOkResponse({ type: RoleMembershipDto })
  create(@CurrentOrganization() access: OrganizationAccess, @Param('role_id') roleId: string, @Body() body: CreateRoleMembershipDto) {
    return this.roles.addMember(access, roleId, body.user_uuid);
  }

  @Delete(':id')
  @HttpCode(204)
  @PersonalKeyAuth('organization:write', ORG)
  async remove(@CurrentOrganization() access: OrganizationAccess, @Param('role_id') roleId: string, @Param('id') id: string): Promise<void> {
    await this.roles.removeMember(access, roleId, id);
  }
}
