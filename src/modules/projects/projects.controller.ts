import { Body, Controller, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from './current-project';
import { parsePageRequest } from '../../common/http/pagination';
import { RequestUrl } from '../../common/http/request-url';
import { CreateProjectDto, ProjectDto, ProjectPageDto, UpdateProjectDto } from './dto/project.dto';
import { ProjectEntity } from './project.entity';
import { ProjectsService } from './projects.service';

@ApiTags('projects')
@ApiBearerAuth()
@Controller('api/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @PersonalKeyAuth('project:read')
  @ApiOkResponse({ type: ProjectPageDto })
  list(@CurrentUser() principal: UserPrincipal, @Query() query: Record<string, unknown>, @RequestUrl() url: URL) {
    return this.projects.pageForUser(principal, parsePageRequest(query), url);
  }

  @Post()
  @HttpCode(201)
  @PersonalKeyAuth('project:write')
  @ApiOkResponse({ type: ProjectDto })
  create(@CurrentUser() principal: UserPrincipal, @Body() body: CreateProjectDto) {
    return this.projects.createForUser(principal, body);
  }

  @Get(':id')
  @PersonalKeyAuth('project:read', { projectParam: 'id' })
  @ApiOkResponse({ type: ProjectDto })
  retrieve(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity) {
    return this.projects.describeForUser(principal, project);
  }

  @Patch(':id')
  @PersonalKeyAuth('project:write', { projectParam: 'id' })
  @ApiOkResponse({ type: ProjectDto })
  update(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Body() body: UpdateProjectDto) {
    return this.projects.updateForUser(principal, project, body);
  }
}
