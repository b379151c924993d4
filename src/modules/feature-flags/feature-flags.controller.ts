import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import { parseActivityPage } from '../activity-logs/activity-logs.service';
import { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import type { ProjectEntity } from '../projects/project.entity';
import { CreateFeatureFlagDto, FeatureFlagDto, FeatureFlagPageDto, UpdateFeatureFlagDto } from './dto/feature-flag.dto';
import { FeatureFlagsService } from './feature-flags.service';
import { parseFlagListFilters } from './flag-list-filters';
import { answerHardDelete, HARD_DELETE_RESPONSE } from '../../common/http/hard-delete';

const PROJECT = { projectParam: 'project_id' };

@ApiTags('feature flags')
@ApiBearerAuth()
@Controller('api/projects/:project_id/feature_flags')
export class FeatureFlagsController {
  constructor(private readonly flags: FeatureFlagsService) {}

  @Get()
  @PersonalKeyAuth('feature_flag:read', PROJECT)
  @ApiOkResponse({ type: FeatureFlagPageDto })
  list(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Query() query: Record<string, unknown>,
    @RequestUrl() url: URL,
  ) {
    return this.flags.page(principal, project, parseFlagListFilters(query), parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('feature_flag:write', PROJECT)
  @ApiResponse({ status: 201, type: FeatureFlagDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: CreateFeatureFlagDto) {
    return this.flags.create(principal, project, body);
  }

  /** All flag activity of the project, newest first (`?page=&limit=`). */
  @Get('activity')
  @PersonalKeyAuth('feature_flag:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  activity(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.flags.activityPage(project, null, parseActivityPage(query), url);
  }

  @Get(':id')
  @PersonalKeyAuth('feature_flag:read', PROJECT)
  @ApiOkResponse({ type: FeatureFlagDto })
  retrieve(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string) {
    return this.flags.describe(principal, project, id);
  }

  @Patch(':id')
  @PersonalKeyAuth('feature_flag:write', PROJECT)
  @ApiOkResponse({ type: FeatureFlagDto })
  update(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('id') id: string,
    @Body() body: UpdateFeatureFlagDto,
  ) {
    return this.flags.update(principal, project, id, body);
  }

  /** Hard deletes are forbidden: `PATCH {"deleted": true}` soft-deletes. */
  @Delete(':id')
  @PersonalKeyAuth('feature_flag:write', PROJECT)
  @ApiResponse(HARD_DELETE_RESPONSE)
  forbidHardDelete(@Res() reply: FastifyReply): void {
    answerHardDelete(reply);
  }

  @Get(':id/activity')
  @PersonalKeyAuth('feature_flag:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  flagActivity(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.flags.activityPage(project, id, parseActivityPage(query), url);
  }
}
