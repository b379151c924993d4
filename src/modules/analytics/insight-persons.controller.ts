import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentProject } from '../projects/current-project';
import { RequestUrl } from '../../common/http/request-url';
import type { ProjectEntity } from '../projects/project.entity';
import { ActorsReplyDto, ApiCorrelationPersonsQuery, ApiFunnelPersonsQuery, ApiPathPersonsQuery, ApiRetentionPersonsQuery, RetentionPersonsReplyDto, ApiLifecyclePersonsQuery, ApiStickinessPersonsQuery, ApiTrendPersonsQuery, PlainActorsReplyDto } from './dto/insight.dto';
import { LegacyInsightsService } from './legacy-insights.service';
import { legacyFilterInput } from './parsers/filter-values';
import { projectAndEnvironmentPaths } from '../../common/http/project-routes';

const PROJECT = { projectParam: 'project_id' };

/** The persons behind one data point of a trend, stickiness or lifecycle insight, or one funnel step. */
@ApiTags('persons')
@ApiBearerAuth()
@Controller(projectAndEnvironmentPaths('persons'))
export class InsightPersonsController {
  constructor(private readonly legacy: LegacyInsightsService) {}

  @Get('trends')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'Persons behind one trends data point (follow a series\' persons_urls)' })
  @ApiTrendPersonsQuery()
  @ApiOkResponse({ type: ActorsReplyDto })
  trends(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.trendPersons(project, legacyFilterInput(query, undefined), url);
  }

  @Get('stickiness')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'Persons active in exactly stickiness_days intervals' })
  @ApiStickinessPersonsQuery()
  @ApiOkResponse({ type: PlainActorsReplyDto })
  stickiness(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.stickinessPersons(project, legacyFilterInput(query, undefined), url);
  }

  @Get('lifecycle')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'Persons with one lifecycle status (lifecycle_type) in one period (target_date)' })
  @ApiLifecyclePersonsQuery()
  @ApiOkResponse({ type: PlainActorsReplyDto })
  lifecycle(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.lifecyclePersons(project, legacyFilterInput(query, undefined), url);
  }

  @Get('funnel')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'Persons who reached a funnel step (funnel_step=n) or dropped off right before it (funnel_step=-n)' })
  @ApiFunnelPersonsQuery()
  @ApiOkResponse({ type: ActorsReplyDto })
  funnel(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.funnelPersons(project, legacyFilterInput(query, undefined), url);
  }

  @Post('funnel')
  @HttpCode(200)
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'The same funnel persons with the filter keys in a JSON body' })
  @ApiFunnelPersonsQuery()
  @ApiOkResponse({ type: ActorsReplyDto })
  funnelPost(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @Body() body: unknown, @RequestUrl() url: URL) {
    return this.legacy.funnelPersons(project, legacyFilterInput(query, body), url);
  }

  @Get('funnel/correlation')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'Persons behind one funnel correlation row, converted or not' })
  @ApiCorrelationPersonsQuery()
  @ApiOkResponse({ type: ActorsReplyDto })
  correlation(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.correlationPersons(project, legacyFilterInput(query, undefined), url);
  }

  @Post('funnel/correlation')
  @HttpCode(200)
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'The same correlation persons with the filter keys in a JSON body' })
  @ApiCorrelationPersonsQuery()
  @ApiOkResponse({ type: ActorsReplyDto })
  correlationPost(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @Body() body: unknown, @RequestUrl() url: URL) {
    return this.legacy.correlationPersons(project, legacyFilterInput(query, body), url);
  }

  @Get('retention')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'Persons of one retention cohort (selected_interval) with the periods they came back in' })
  @ApiRetentionPersonsQuery()
  @ApiOkResponse({ type: RetentionPersonsReplyDto })
  retention(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.retentionPersons(project, legacyFilterInput(query, undefined), url);
  }

  @Get('path')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'Persons whose paths start at (path_start_key), reach (path_end_key) or end at (path_dropoff_key) a step' })
  @ApiPathPersonsQuery()
  @ApiOkResponse({ type: ActorsReplyDto })
  paths(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.pathPersons(project, legacyFilterInput(query, undefined), url);
  }

  @Post('path')
  @HttpCode(200)
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOperation({ summary: 'The same path persons with the filter keys in a JSON body' })
  @ApiPathPersonsQuery()
  @ApiOkResponse({ type: ActorsReplyDto })
  pathsPost(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @Body() body: unknown, @RequestUrl() url: URL) {
    return this.legacy.pathPersons(project, legacyFilterInput(query, body), url);
  }
}
