import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { answerHardDelete, HARD_DELETE_RESPONSE } from '../../common/http/hard-delete';
import { RequestUrl } from '../../common/http/request-url';
import { parseActivityPage } from '../activity-logs/activity-logs.service';
import { ActivityLogPageDto } from '../activity-logs/dto/activity-log.dto';
import type { ProjectEntity } from '../projects/project.entity';
import { ActionsService } from './actions.service';
import { ActionDto, ActionListDto, CreateActionDto, UpdateActionDto } from './dto/action.dto';

const PROJECT = { projectParam: 'project_id' };

@ApiTags('actions')
@ApiBearerAuth()
@Controller('api/projects/:project_id/actions')
export class ActionsController {
  constructor(private readonly actions: ActionsService) {}

  /** Every live action of the project (PostHog does not page them). */
  @Get()
  @PersonalKeyAuth('action:read', PROJECT)
  @ApiOkResponse({ type: ActionListDto })
  list(@CurrentProject() project: ProjectEntity) {
    return this.actions.list(project);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('action:write', PROJECT)
  @ApiResponse({ status: 201, type: ActionDto })
  create(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: CreateActionDto) {
    return this.actions.create(principal, project, body);
  }

  /** All action activity of the project, newest first (`?page=&limit=`). */
  @Get('activity')
  @PersonalKeyAuth('action:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  activity(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.actions.activityPage(project, null, parseActivityPage(query), url);
  }

  @Get(':id')
  @PersonalKeyAuth('action:read', PROJECT)
  @ApiOkResponse({ type: ActionDto })
  retrieve(@CurrentProject() project: ProjectEntity, @Param('id') id: string) {
    return this.actions.describe(project, id);
  }

  @Patch(':id')
  @PersonalKeyAuth('action:write', PROJECT)
  @ApiOkResponse({ type: ActionDto })
  update(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateActionDto) {
    return this.actions.update(principal, project, id, body);
  }

  /** PUT sends the whole action; fields it leaves out keep their values, as with PATCH. */
  @Put(':id')
  @PersonalKeyAuth('action:write', PROJECT)
  @ApiOkResponse({ type: ActionDto })
  replace(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateActionDto) {
    return this.actions.update(principal, project, id, body);
  }

  /** Hard deletes are forbidden, as PostHog forbids them: `PATCH {"deleted": true}` soft-deletes. */
  @Delete(':id')
  @PersonalKeyAuth('action:write', PROJECT)
  @ApiResponse(HARD_DELETE_RESPONSE)
  forbidHardDelete(@Res() reply: FastifyReply): void {
    answerHardDelete(reply);
  }

  @Get(':id/activity')
  @PersonalKeyAuth('action:read', PROJECT)
  @ApiOkResponse({ type: ActivityLogPageDto })
  itemActivity(@CurrentProject() project: ProjectEntity, @Param('id') id: string, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.actions.activityPage(project, id, parseActivityPage(query), url);
  }
}
