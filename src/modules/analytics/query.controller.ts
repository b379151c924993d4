import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentProject } from '../projects/current-project';
import type { ProjectEntity } from '../projects/project.entity';
import { QueryService } from './query.service';
import { projectAndEnvironmentPaths } from '../../common/http/project-routes';

/** PostHog's query API for the insight kinds served here and the actors behind them. */
@ApiTags('query')
@ApiBearerAuth()
@Controller(projectAndEnvironmentPaths('query'))
export class QueryController {
  constructor(private readonly queries: QueryService) {}

  @Post()
  @HttpCode(200)
  @PersonalKeyAuth('query:read', { projectParam: 'project_id' })
  @ApiOperation({
    summary: 'Run a TrendsQuery, StickinessQuery, LifecycleQuery, ActorsQuery (source: InsightActorsQuery) or InsightActorsQueryOptions',
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['query'],
      properties: {
        query: { type: 'object', description: 'A query node: {"kind": "TrendsQuery", "series": [{"kind": "EventsNode", "event": "$pageview", "math": "dau"}], "dateRange": {"date_from": "-7d"}, …}' },
        refresh: { type: 'string', description: '"force_blocking" (or true) recomputes; anything else may answer from the cache.' },
      },
    },
  })
  @ApiOkResponse({ description: 'Insight nodes: {results, hasMore, is_cached, last_refresh, timezone}. ActorsQuery: {results, columns, types, hasMore, limit, offset, missing_actors_count}.' })
  run(@CurrentProject() project: ProjectEntity, @Body() body: unknown) {
    return this.queries.run(project, body);
  }
}
