import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { queryText } from '../../common/http/query-values';
import { RequestUrl } from '../../common/http/request-url';
import { parseActivityPage } from '../activity-logs/activity-logs.service';
import { ActivityLogsService } from '../activity-logs/activity-logs.service';
import { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import type { ProjectEntity } from '../projects/project.entity';
import { PersonCohortListDto, PersonDto, PersonPropertyCountDto } from './dto/person.dto';
import { BulkDeletePersonsDto, BulkDeletePersonsResultDto } from './dto/person-bulk-delete.dto';
import { parseBulkDeleteRequest } from './person-bulk-delete';
import { PersonQueriesService } from './person-queries.service';
import { parsePersonRef, propertyValueOf, requiredField, textField } from './person-requests';
import { PERSON_SCOPE, PersonWritesService } from './person-writes.service';
import { projectAndEnvironmentPaths } from '../../common/http/project-routes';

const PROJECT = { projectParam: 'project_id' };

/** Person side routes: activity, property values and names, cohorts, bulk delete, and the property/split actions. */
@ApiTags('persons')
@ApiBearerAuth()
@Controller(projectAndEnvironmentPaths('persons'))
export class PersonActionsController {
  constructor(
    private readonly queries: PersonQueriesService,
    private readonly writes: PersonWritesService,
    private readonly activity: ActivityLogsService,
  ) {}

  @Get('activity')
  @PersonalKeyAuth('activity_log:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  allActivity(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.activity.page(project.id, PERSON_SCOPE, null, parseActivityPage(query), url);
  }

  @Get('values')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOkResponse({ type: PersonPropertyCountDto, isArray: true })
  values(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.queries.values(project.id, queryText(query.key), queryText(query.value));
  }

  @Get('properties')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOkResponse({ type: PersonPropertyCountDto, isArray: true })
  properties(@CurrentProject() project: ProjectEntity) {
    return this.queries.properties(project.id);
  }

  @Get('cohorts')
  @PersonalKeyAuth('person:read', PROJECT)
  @ApiOkResponse({ type: PersonCohortListDto })
  cohorts(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.queries.cohorts(project.id, parsePersonRef(String(requiredField(undefined, query, 'person_id'))));
  }

  /** Deletes the persons named by `ids` (uuids) or `distinct_ids`, with their events if asked; 202 with counts. */
  @Post('bulk_delete')
  @HttpCode(202)
  @PersonalKeyAuth('person:write', PROJECT)
  @ApiResponse({ status: 202, type: BulkDeletePersonsResultDto })
  bulkDelete(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: BulkDeletePersonsDto) {
    return this.writes.bulkDelete({ principal, project }, parseBulkDeleteRequest(body));
  }

  @Get(':id/activity')
  @PersonalKeyAuth('activity_log:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  async personActivity(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    const person = await this.queries.view(project.id, parsePersonRef(id));
    return this.activity.page(project.id, PERSON_SCOPE, String(person.id), parseActivityPage(query), url);
  }

  /** Removes the property named by `$unset` (body or query). */
  @Post(':id/delete_property')
  @HttpCode(200)
  @PersonalKeyAuth('person:write', PROJECT)
  @ApiOkResponse({ type: PersonDto })
  deleteProperty(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
  ) {
    const ref = parsePersonRef(id);
    return this.writes.unsetProperty({ principal, project }, ref, textField(requiredField(body, query, '$unset'), '$unset'));
  }

  /** Sets `key` to `value` (JSON when it parses, else the text), from the body or the query. */
  @Post(':id/update_property')
  @HttpCode(200)
  @PersonalKeyAuth('person:write', PROJECT)
  @ApiOkResponse({ type: PersonDto })
  updateProperty(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
  ) {
    const ref = parsePersonRef(id);
    const key = textField(requiredField(body, query, 'key'), 'key');
    return this.writes.setProperty({ principal, project }, ref, key, propertyValueOf(requiredField(body, query, 'value')));
  }

  @Post(':id/split')
  @HttpCode(200)
  @PersonalKeyAuth('person:write', PROJECT)
  @ApiOkResponse({ type: PersonDto })
  split(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: unknown) {
    const raw = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).main_distinct_id : undefined;
    const main = raw === undefined || raw === null ? undefined : textField(raw, 'main_distinct_id');
    return this.writes.split({ principal, project }, parsePersonRef(id), main);
  }
}
