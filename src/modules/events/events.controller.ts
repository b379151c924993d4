import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentProject } from '../projects/current-project';
import { parsePageRequest } from '../../common/http/pagination';
import { queryText } from '../../common/http/query-values';
import { RequestUrl } from '../../common/http/request-url';
import type { ProjectEntity } from '../projects/project.entity';
import { csvPage, toCsv, wantsCsv } from './csv-export';
import { EventDto, EventPageDto, EventValueDto } from './dto/event.dto';
import { ApiEventListQuery, ApiIncludePersonQuery } from './dto/event-query-params';
import { EventQueriesService } from './event-queries.service';
import { eventNamesOf, parseEventListFilters, parseIncludePerson } from './event-requests';
import { projectAndEnvironmentPaths } from '../../common/http/project-routes';

const PROJECT = { projectParam: 'project_id' };

/** Stored events: list (JSON or CSV), retrieve by uuid, property values. PostHog's scope is `query`. */
@ApiTags('events')
@ApiBearerAuth()
@Controller(projectAndEnvironmentPaths())
export class EventsController {
  constructor(private readonly events: EventQueriesService) {}

  @Get('events')
  @PersonalKeyAuth('query:read', PROJECT)
  @ApiOkResponse({ type: EventPageDto })
  @ApiProduces('application/json', 'text/csv')
  @ApiEventListQuery()
  list(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.respond(project, query, url, reply, false);
  }

  /** DRF's format suffix: the list as CSV. */
  @Get('events.csv')
  @PersonalKeyAuth('query:read', PROJECT)
  @ApiProduces('text/csv')
  @ApiEventListQuery()
  listCsv(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.respond(project, query, url, reply, true);
  }

  private async respond(project: ProjectEntity, query: Record<string, unknown>, url: URL, reply: FastifyReply, suffix: boolean) {
    const filters = parseEventListFilters(query);
    const options = { includePerson: parseIncludePerson(query.include_person) };
    if (!wantsCsv(query, suffix)) return this.events.page(project.id, filters, parsePageRequest(query), url, options);
    const page = await this.events.page(project.id, filters, csvPage(query), url, options);
    reply.header('content-type', 'text/csv; charset=utf-8');
    return toCsv(page.results);
  }

  /** `key` (required), `value` (substring), `event` / `event_name` to narrow. */
  @Get('events/values')
  @PersonalKeyAuth('query:read', PROJECT)
  @ApiOkResponse({ type: EventValueDto, isArray: true })
  values(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.events.values(project.id, queryText(query.key), eventNamesOf(query), queryText(query.value));
  }

  @Get('events/:id')
  @PersonalKeyAuth('query:read', PROJECT)
  @ApiOkResponse({ type: EventDto })
  @ApiIncludePersonQuery()
  retrieve(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query('include_person') includePerson: unknown) {
    return this.events.describe(project.id, id, { includePerson: parseIncludePerson(includePerson) });
  }
}
