import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import type { ProjectEntity } from '../projects/project.entity';
import { EventDefinitionDto, EventDefinitionPageDto, UpdateEventDefinitionDto } from './dto/event-definition.dto';
import { parseDefinitionListFilters } from './event-definition-rules';
import { EventDefinitionManagementService } from './event-definition-management.service';

const PROJECT = { projectParam: 'project_id' };

@ApiTags('event definitions')
@ApiBearerAuth()
@Controller('api/projects/:project_id/event_definitions')
export class EventDefinitionsController {
  constructor(private readonly definitions: EventDefinitionManagementService) {}

  /** `search` (every term a substring of the name), `event_type`, `ordering`, limit/offset with count. */
  @Get()
  @PersonalKeyAuth('event_definition:read', PROJECT)
  @ApiOkResponse({ type: EventDefinitionPageDto })
  list(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.definitions.page(project.id, parseDefinitionListFilters(query), parsePageRequest(query), url);
  }

  @Get(':id')
  @PersonalKeyAuth('event_definition:read', PROJECT)
  @ApiOkResponse({ type: EventDefinitionDto })
  retrieve(@CurrentProject() project: ProjectEntity, @Param('id') id: string) {
    return this.definitions.describe(project.id, id);
  }

  @Patch(':id')
  @PersonalKeyAuth('event_definition:write', PROJECT)
  @ApiOkResponse({ type: EventDefinitionDto })
  update(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Param('id') id: string, @Body() body: UpdateEventDefinitionDto) {
    return this.definitions.update(principal, project, id, body);
  }
}
