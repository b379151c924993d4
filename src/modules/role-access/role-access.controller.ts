import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import type { ProjectEntity } from '../projects/project.entity';
import { CreateRoleAccessDto, RoleAccessDto, RoleAccessPageDto } from './dto/role-access.dto';
import { RoleAccessService } from './role-access.service';

const PROJECT = { projectParam: 'project_id' };

@ApiTags('feature flags')
@ApiBearerAuth()
@Controller('api/projects/:project_id/feature_flags/:parent_lookup_feature_flag_id/role_access')
export class RoleAccessController {
  constructor(private readonly access: RoleAccessService) {}

  @Get()
  @PersonalKeyAuth('feature_flag:read', PROJECT)
  @ApiOkResponse({ type: RoleAccessPageDto })
  list(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('parent_lookup_feature_flag_id') flagId: string,
    @Query() query: Record<string, unknown>,
    @RequestUrl() url: URL,
  ) {
    return this.access.page(principal, project, flagId, parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('feature_flag:write', PROJECT)
  @ApiResponse({ status: 201, type: RoleAccessDto })
  create(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('parent_lookup_feature_flag_id') flagId: string,
    @Body() body: CreateRoleAccessDto,
  ) {
    return this.access.create(principal, project, flagId, body.role_id);
  }

  @Get(':id')
  @PersonalKeyAuth('feature_flag:read', PROJECT)
  @ApiOkResponse({ type: RoleAccessDto })
  retrieve(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('parent_lookup_feature_flag_id') flagId: string,
    @Param('id') id: string,
  ) {
    return this.access.describe(principal, project, flagId, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @PersonalKeyAuth('feature_flag:write', PROJECT)
  async remove(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('parent_lookup_feature_flag_id') flagId: string,
    @Param('id') id: string,
  ): Promise<void> {
    await this.access.delete(principal, project, flagId, id);
  }
}
