import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentProject } from '../projects/current-project';
import { RequestUrl } from '../../common/http/request-url';
import type { ProjectEntity } from '../projects/project.entity';
import {
  ApiCorrelationQuery, ApiFunnelFilterQuery, ApiInsightFilterQuery, ApiPathsQuery, ApiRetentionQuery, CorrelationReplyDto, FunnelReplyDto, InsightReplyDto, PathsReplyDto,
  RetentionReplyDto,
} from './dto/insight.dto';
import { LegacyInsightsService } from './legacy-insights.service';
import { legacyFilterInput } from './parsers/filter-values';
import { projectAndEnvironmentPaths } from '../../common/http/project-routes';

const PROJECT = { projectParam: 'project_id' };

/** PostHog's legacy insight endpoints: the filter in the query string, or the same keys in a JSON body. */
@ApiTags('insights')
@ApiBearerAuth()
@Controller(projectAndEnvironmentPaths('insights'))
export class InsightsController {
  constructor(private readonly legacy: LegacyInsightsService) {}

  @Get('trend')
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'Trends, stickiness (shown_as=Stickiness) or lifecycle (shown_as=Lifecycle) of event series' })
  @ApiInsightFilterQuery()
  @ApiOkResponse({ type: InsightReplyDto })
  trend(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.legacy.trend(project, legacyFilterInput(query, undefined), url);
  }

  @Post('trend')
  @HttpCode(200)
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'The same insight with the filter keys in a JSON body (body wins over the query string)' })
  @ApiInsightFilterQuery()
  @ApiOkResponse({ type: InsightReplyDto })
  trendPost(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @Body() body: unknown, @RequestUrl() url: URL) {
    return this.legacy.trend(project, legacyFilterInput(query, body), url);
  }

  @Get('funnel')
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'Funnel steps: how many actors reached each step in order, and their conversion times' })
  @ApiFunnelFilterQuery()
  @ApiOkResponse({ type: FunnelReplyDto })
  funnel(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.legacy.funnel(project, legacyFilterInput(query, undefined));
  }

  @Post('funnel')
  @HttpCode(200)
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'The same funnel with the filter keys in a JSON body (body wins over the query string)' })
  @ApiFunnelFilterQuery()
  @ApiOkResponse({ type: FunnelReplyDto })
  funnelPost(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @Body() body: unknown) {
    return this.legacy.funnel(project, legacyFilterInput(query, body));
  }

  @Get('funnel/correlation')
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'Funnel correlation: events or property values that go with converting, with odds ratios' })
  @ApiCorrelationQuery()
  @ApiOkResponse({ type: CorrelationReplyDto })
  correlation(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.legacy.correlation(project, legacyFilterInput(query, undefined));
  }

  @Post('funnel/correlation')
  @HttpCode(200)
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'The same correlation with the filter keys in a JSON body' })
  @ApiCorrelationQuery()
  @ApiOkResponse({ type: CorrelationReplyDto })
  correlationPost(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @Body() body: unknown) {
    return this.legacy.correlation(project, legacyFilterInput(query, body));
  }

  @Get('retention')
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'Retention: cohorts of actors by the period of their target event, and how many came back in each later period' })
  @ApiRetentionQuery()
  @ApiOkResponse({ type: RetentionReplyDto })
  retention(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.legacy.retention(project, legacyFilterInput(query, undefined));
  }

  @Get('path')
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'Paths: the most travelled steps between page views, screens or events, as weighted edges' })
  @ApiPathsQuery()
  @ApiOkResponse({ type: PathsReplyDto })
  paths(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.legacy.paths(project, legacyFilterInput(query, undefined));
  }

  @Post('path')
  @HttpCode(200)
  @PersonalKeyAuth('insight:read', PROJECT)
  @ApiOperation({ summary: 'The same paths with the filter keys in a JSON body' })
  @ApiPathsQuery()
  @ApiOkResponse({ type: PathsReplyDto })
  pathsPost(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @Body() body: unknown) {
    return this.legacy.paths(project, legacyFilterInput(query, body));
  }
}
