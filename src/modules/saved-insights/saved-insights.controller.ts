import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { answerHardDelete, HARD_DELETE_RESPONSE } from '../../common/http/hard-delete';
import { parsePageRequest } from '../../common/http/pagination';
import { projectAndEnvironmentPaths } from '../../common/http/project-routes';
import { RequestUrl } from '../../common/http/request-url';
import { parseActivityPage } from '../activity-logs/activity-logs.service';
import { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import type { ProjectEntity } from '../projects/project.entity';
import { CreateSavedInsightDto, SavedInsightDto, SavedInsightPageDto, UpdateSavedInsightDto } from './dto/saved-insight.dto';
import { refreshModeOf } from './insight-refresh';
import { parseListFilters, wantsBasic } from './saved-insight-requests';
import { SavedInsightsService } from './saved-insights.service';

const PROJECT = { projectParam: 'project_id' };
const REFRESH = ApiQuery({
  name: 'refresh', required: false, enum: ['force_cache', 'blocking', 'force_blocking', 'true'],
  description: 'force_cache (default): the last computed result or none; blocking: compute unless the last result is fresh; force_blocking or true: compute.',
});

/** Saved insights (PostHog's `/insights/`); the legacy `/insights/trend/`… routes beside them are the analytics module's. */
@ApiTags('insights')
@ApiBearerAuth()
@Controller(projectAndEnvironmentPaths('insights'))
export class SavedInsightsController {
  constructor(private readonly insights: SavedInsightsService) {}

  /** `saved`, `favorited`, `user`, `short_id`, `search`, `created_by`, `insight`, `order`, `basic`, `refresh`, limit/offset. */
  @Get()
  @PersonalKeyAuth('insight:read', PROJECT)
  @REFRESH
  @ApiOkResponse({ type: SavedInsightPageDto })
  list(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    const show = { basic: wantsBasic(query), mode: refreshModeOf(query.refresh) };
    return this.insights.page(project, parseListFilters(query, principal.user.id), parsePageRequest(query), url, show);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('insight:write', PROJECT)
  @REFRESH
  @ApiResponse({ status: 201, type: SavedInsightDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: CreateSavedInsightDto, @Query('refresh') refresh: unknown) {
    return this.insights.create(principal, project, body, refreshModeOf(refresh));
  }

  /** All insight activity of the project, newest first (`?page=&limit=`). */
  @Get('activity')
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  activity(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.insights.activityPage(project, null, parseActivityPage(query), url);
  }

  /** By id or short id. */
  @Get(':id')
  @PersonalKeyAuth('insight:read', PROJECT)
  @REFRESH
  @ApiOkResponse({ type: SavedInsightDto })
  retrieve(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query('refresh') refresh: unknown) {
    return this.insights.describe(project, id, refreshModeOf(refresh));
  }

  /** `{"deleted": true}` soft-deletes, `{"deleted": false}` restores. */
  @Patch(':id')
  @PersonalKeyAuth('insight:write', PROJECT)
  @REFRESH
  @ApiOkResponse({ type: SavedInsightDto })
  update(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateSavedInsightDto, @Query('refresh') refresh: unknown) {
    return this.insights.update(principal, project, id, body, refreshModeOf(refresh));
  }

  /** PUT sends the whole insight; fields it leaves out keep their values, as with PATCH. */
  @Put(':id')
  @PersonalKeyAuth('insight:write', PROJECT)
  @ApiOkResponse({ type: SavedInsightDto })
  replace(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateSavedInsightDto, @Query('refresh') refresh: unknown) {
    return this.insights.update(principal, project, id, body, refreshModeOf(refresh));
  }

  /** Hard deletes are forbidden, as PostHog forbids them: `PATCH {"deleted": true}` soft-deletes. */
  @Delete(':id')
  @PersonalKeyAuth('insight:write', PROJECT)
  @ApiResponse(HARD_DELETE_RESPONSE)
  forbidHardDelete(@Res() reply: FastifyReply): void {
    answerHardDelete(reply);
  }

  @Get(':id/activity')
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  itemActivity(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.insights.activityPage(project, id, parseActivityPage(query), url);
  }
}
