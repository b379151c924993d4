import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentUser, UserPrincipal } from '../../common/auth/principal';
import { CurrentProject } from '../projects/current-project';
import type { ProjectEntity } from '../projects/project.entity';
import { parseBlastRadiusRequest, parseGroupsParam, requireDistinctId } from './flag-insights-requests';
import { FlagInsightsService } from './flag-insights.service';

const READ = { projectParam: 'project_id' };

@ApiTags('feature flags')
@ApiBearerAuth()
@Controller('api/projects/:project_id/feature_flags')
export class FlagInsightsController {
  constructor(private readonly insights: FlagInsightsService) {}

  @Get('my_flags')
  @PersonalKeyAuth('feature_flag:read', READ)
  @ApiOperation({ summary: "Every live flag with its value for the calling user's distinct_id (?groups= JSON object)" })
  @ApiOkResponse({ description: '[{feature_flag, value}]' })
  myFlags(@CurrentUser() principal: UserPrincipal, @CurrentProject() project: ProjectEntity, @Query('groups') groups: unknown) {
    return this.insights.myFlags(principal, project, parseGroupsParam(groups));
  }

  @Get('evaluation_reasons')
  @PersonalKeyAuth('feature_flag:read', READ)
  @ApiOperation({ summary: 'Value, reason and condition index of every live flag for ?distinct_id= (and ?groups=)' })
  @ApiOkResponse({ description: '{<key>: {value, evaluation: {reason, condition_index}}}' })
  evaluationReasons(@CurrentProject() project: ProjectEntity, @Query('distinct_id') distinctId: unknown, @Query('groups') groups: unknown) {
    return this.insights.evaluationReasons(project, requireDistinctId(distinctId), parseGroupsParam(groups));
  }

  @Post('user_blast_radius')
  @HttpCode(200)
  @PersonalKeyAuth('feature_flag:read', READ)
  @ApiOperation({ summary: 'How many persons (or groups) a condition set matches, before its rollout' })
  @ApiOkResponse({ description: '{users_affected, total_users}' })
  blastRadius(@CurrentProject() project: ProjectEntity, @Body() body: unknown) {
    return this.insights.blastRadius(project, parseBlastRadiusRequest(body));
  }
}
