import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import type { ProjectEntity } from '../projects/project.entity';
import { parseCohortListFilters } from './cohort-list-filters';
import { CohortsService } from './cohorts.service';
import {
  AddPersonsToStaticCohortDto,
  CohortDto,
  CohortPageDto,
  CreateCohortDto,
  RemovePersonFromStaticCohortDto,
  SuccessDto,
  UpdateCohortDto,
} from './dto/cohort.dto';
import { answerHardDelete, HARD_DELETE_RESPONSE } from '../../common/http/hard-delete';

const PROJECT = { projectParam: 'project_id' };

@ApiTags('cohorts')
@ApiBearerAuth()
@Controller('api/projects/:project_id/cohorts')
export class CohortsController {
  constructor(private readonly cohorts: CohortsService) {}

  /** Live cohorts, newest first (`?type=static|dynamic&created_by_id=&search=&limit=&offset=`). */
  @Get()
  @PersonalKeyAuth('cohort:read', PROJECT)
  @ApiOkResponse({ type: CohortPageDto })
  list(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.cohorts.page(project, parseCohortListFilters(query), parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('cohort:write', PROJECT)
  @ApiResponse({ status: 201, type: CohortDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: CreateCohortDto) {
    return this.cohorts.create(principal, project, body);
  }

  @Get(':id')
  @PersonalKeyAuth('cohort:read', PROJECT)
  @ApiOkResponse({ type: CohortDto })
  retrieve(@CurrentProject() project: ProjectEntity, @Param('id') id: string) {
    return this.cohorts.describe(project, id);
  }

  @Patch(':id')
  @PersonalKeyAuth('cohort:write', PROJECT)
  @ApiOkResponse({ type: CohortDto })
  update(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateCohortDto) {
    return this.cohorts.update(principal, project, id, body);
  }

  /** Hard deletes are forbidden, as for flags: `PATCH {"deleted": true}` soft-deletes. */
  @Delete(':id')
  @PersonalKeyAuth('cohort:write', PROJECT)
  @ApiResponse(HARD_DELETE_RESPONSE)
  forbidHardDelete(@Res() reply: FastifyReply): void {
    answerHardDelete(reply);
  }

  @Patch(':id/add_persons_to_static_cohort')
  @PersonalKeyAuth('cohort:write', PROJECT)
  @ApiOkResponse({ type: SuccessDto })
  addPersons(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('id') id: string,
    @Body() body: AddPersonsToStaticCohortDto,
  ) {
    return this.cohorts.addPersons(principal, project, id, body?.person_ids);
  }

  @Patch(':id/remove_person_from_static_cohort')
  @PersonalKeyAuth('cohort:write', PROJECT)
  @ApiOkResponse({ type: SuccessDto })
  removePerson(
    @CurrentUser() principal: UserPrincipal,
    @CurrentProject() project: ProjectEntity,
    @Param('id') id: string,
    @Body() body: RemovePersonFromStaticCohortDto,
  ) {
    return this.cohorts.removePerson(principal, project, id, body?.person_id);
  }
}
