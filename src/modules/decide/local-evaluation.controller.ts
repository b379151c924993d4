import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import fresh from 'fresh';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentProject } from '../projects/current-project';
import type { ProjectEntity } from '../projects/project.entity';
import { LocalEvaluationService } from './local-evaluation.service';

const READ = 'feature_flag:read';

/**
 * What posthog-node and posthog-python poll for local evaluation,
 * on the current path and the two older ones. ETag/304 saves resending unchanged definitions.
 */
@ApiTags('feature_flags')
@Controller()
export class LocalEvaluationController {
  constructor(private readonly localEvaluation: LocalEvaluationService) {}

  @Get(['flags/definitions', 'api/feature_flag/local_evaluation'])
  @PersonalKeyAuth(READ, { projectFromToken: true })
  @ApiOperation({ summary: 'Flag definitions, group type mapping and cohorts of the project whose API key is in ?token=' })
  @ApiOkResponse({ description: '{flags, group_type_mapping, cohorts}' })
  byToken(
    @CurrentProject() project: ProjectEntity,
    @Query() query: Record<string, unknown>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    return this.send(project, query, ifNoneMatch, reply);
  }

  @Get('api/projects/:project_id/feature_flags/local_evaluation')
  @PersonalKeyAuth(READ, { projectParam: 'project_id' })
  @ApiOperation({ summary: 'Flag definitions, group type mapping and cohorts for SDK local evaluation' })
  @ApiOkResponse({ description: '{flags, group_type_mapping, cohorts}' })
  byProject(
    @CurrentProject() project: ProjectEntity,
    @Query() query: Record<string, unknown>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ) {
    return this.send(project, query, ifNoneMatch, reply);
  }

  private async send(project: ProjectEntity, query: Record<string, unknown>, ifNoneMatch: string | undefined, reply: FastifyReply) {
    // `send_cohorts` is a bare flag: present (with any value) means yes.
    const document = await this.localEvaluation.definitions(project.id, query.send_cohorts !== undefined);
    reply.header('etag', document.etag).header('cache-control', 'private, no-cache');
    // Weak comparison, as HTTP asks of If-None-Match: a compressing proxy turns the tag into W/"…".
    if (ifNoneMatch !== undefined && fresh({ 'if-none-match': ifNoneMatch }, { etag: document.etag })) {
      return reply.status(304).send();
    }
    return reply.status(200).type('application/json; charset=utf-8').send(document.json);
  }
}
