import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { answerHardDelete, HARD_DELETE_RESPONSE } from '../../common/http/hard-delete';
import { parsePageRequest } from '../../common/http/pagination';
import { querySearch, queryText } from '../../common/http/query-values';
import { RequestUrl } from '../../common/http/request-url';
import { parseActivityPage } from '../activity-logs/activity-logs.service';
import { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import type { ProjectEntity } from '../projects/project.entity';
import { refreshModeOf } from '../saved-insights/insight-refresh';
import { parseFiltersOverride } from './dashboard-requests';
import { DashboardsService } from './dashboards.service';
import { CreateDashboardDto, DashboardDto, DashboardPageDto, UpdateDashboardDto } from './dto/dashboard.dto';

const PROJECT = { projectParam: 'project_id' };
const REFRESH = ApiQuery({
  name: 'refresh', required: false, enum: ['force_cache', 'blocking', 'force_blocking', 'true'],
  description: 'How each tile gets its result: force_cache (default) the last computed or none; blocking computes stale ones; force_blocking or true computes all.',
});

@ApiTags('dashboards')
@ApiBearerAuth()
@Controller('api/projects/:project_id/dashboards')
export class DashboardsController {
  constructor(private readonly dashboards: DashboardsService) {}

  /** Live dashboards, pinned first, then by name; `search` (name, description, tags), limit/offset. */
  @Get()
  @PersonalKeyAuth('dashboard:read', PROJECT)
  @ApiOkResponse({ type: DashboardPageDto })
  list(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.dashboards.page(project, querySearch(query.search), parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('dashboard:write', PROJECT)
  @ApiResponse({ status: 201, type: DashboardDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: CreateDashboardDto) {
    return this.dashboards.create(principal, project, body);
  }

  /** All dashboard activity of the project, newest first (`?page=&limit=`). */
  @Get('activity')
  @PersonalKeyAuth('dashboard:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  activity(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.dashboards.activityPage(project, null, parseActivityPage(query), url);
  }

  /** With its tiles, each computed as `refresh` says, with the dashboard's filters (and `filters_override`, JSON) applied. */
  @Get(':id')
  @PersonalKeyAuth('dashboard:read', PROJECT)
  @REFRESH
  @ApiQuery({ name: 'filters_override', required: false, type: String, description: 'JSON filters laid over the dashboard\'s for this read.' })
  @ApiOkResponse({ type: DashboardDto })
  retrieve(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.dashboards.describe(project, id, refreshModeOf(query.refresh), parseFiltersOverride(queryText(query.filters_override)));
  }

  @Patch(':id')
  @PersonalKeyAuth('dashboard:write', PROJECT)
  @REFRESH
  @ApiOkResponse({ type: DashboardDto })
  update(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateDashboardDto, @Query('refresh') refresh: unknown) {
    return this.dashboards.update(principal, project, id, body, refreshModeOf(refresh));
  }

  /** PUT sends the whole dashboard; fields it leaves out keep their values, as with PATCH. */
  @Put(':id')
  @PersonalKeyAuth('dashboard:write', PROJECT)
  @ApiOkResponse({ type: DashboardDto })
  replace(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateDashboardDto, @Query('refresh') refresh: unknown) {
    return this.dashboards.update(principal, project, id, body, refreshModeOf(refresh));
  }

  /** Hard deletes are forbidden, as PostHog forbids them: `PATCH {"deleted": true}` soft-deletes. */
  @Delete(':id')
  @PersonalKeyAuth('dashboard:write', PROJECT)
  @ApiResponse(HARD_DELETE_RESPONSE)
  forbidHardDelete(@Res() reply: FastifyReply): void {
    answerHardDelete(reply);
  }

  @Get(':id/activity')
  @PersonalKeyAuth('dashboard:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  itemActivity(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.dashboards.activityPage(project, id, parseActivityPage(query), url);
  }
}
