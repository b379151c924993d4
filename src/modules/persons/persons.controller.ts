import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import { csvPage, toCsv, wantsCsv } from '../events/csv-export';
import type { ProjectEntity } from '../projects/project.entity';
import { PersonDto, PersonPageDto, PersonPropertiesDto } from './dto/person.dto';
import { PersonQueriesService } from './person-queries.service';
import { parsePersonDeleteOptions, parsePersonListFilters, parsePersonRef } from './person-requests';
import { PersonWritesService } from './person-writes.service';
import { projectAndEnvironmentPaths } from '../../common/http/project-routes';

const PROJECT = { projectParam: 'project_id' };

/** Persons: list (JSON or CSV), create, retrieve, PATCH, DELETE. */
@ApiTags('persons')
@ApiBearerAuth()
@Controller(projectAndEnvironmentPaths())
export class PersonsController {
  constructor(
    private readonly queries: PersonQueriesService,
    private readonly writes: PersonWritesService,
  ) {}

  @Get('persons')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOkResponse({ type: PersonPageDto })
  @ApiProduces('application/json', 'text/csv')
  list(
    @CurrentProject() project: ProjectEntity,
    @Query() query: Record<string, unknown>,
    @RequestUrl() url: URL,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.respond(project, query, url, reply, false);
  }

  /** DRF's format suffix: the list as CSV. */
  @Get('persons.csv')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiProduces('text/csv')
  listCsv(
    @CurrentProject() project: ProjectEntity,
    @Query() query: Record<string, unknown>,
    @RequestUrl() url: URL,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.respond(project, query, url, reply, true);
  }

  private async respond(project: ProjectEntity, query: Record<string, unknown>, url: URL, reply: FastifyReply, suffix: boolean) {
    const filters = parsePersonListFilters(query);
    if (!wantsCsv(query, suffix)) return this.queries.page(project.id, filters, parsePageRequest(query), url);
    const page = await this.queries.page(project.id, filters, csvPage(query), url);
    reply.header('content-type', 'text/csv; charset=utf-8');
    return toCsv(page.results);
  }

  @Post('persons')
  @HttpCode(201)
  @PersonalKeyAuth('person:write', PROJECT)
  @ApiResponse({ status: 201, type: PersonDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: PersonPropertiesDto) {
    return this.writes.create({ principal, project }, body.properties);
  }

  @Get('persons/:id')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOkResponse({ type: PersonDto })
  retrieve(@CurrentProject() project: ProjectEntity, @Param('id') id: string) {
    return this.queries.describe(project.id, parsePersonRef(id));
  }

  /** Merges `properties` into the person's (`$set`); the reply is the updated person. */
  @Patch('persons/:id')
  @PersonalKeyAuth('person:write', PROJECT)
  @ApiOkResponse({ type: PersonDto })
  update(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('id') id: string,
    @Body() body: PersonPropertiesDto,
  ) {
    return this.writes.mergeProperties({ principal, project }, parsePersonRef(id), body.properties);
  }

  /** `?delete_events=true` also deletes the person's events; `?keep_person=true` keeps the person itself. */
  @Delete('persons/:id')
  @HttpCode(204)
  @PersonalKeyAuth('person:write', PROJECT)
  @ApiQuery({ name: 'delete_events', required: false, type: Boolean, description: '`true` or `1`: also delete the events of its distinct ids.' })
  @ApiQuery({ name: 'keep_person', required: false, type: Boolean, description: '`true` or `1`: keep the person (with `delete_events`, only its events go).' })
  @ApiResponse({ status: 204 })
  async remove(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    await this.writes.delete({ principal, project }, parsePersonRef(id), parsePersonDeleteOptions(query));
  }
}
