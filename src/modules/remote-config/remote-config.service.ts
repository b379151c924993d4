import { Injectable } from '@nestjs/common';
import { projectTokenShapeProblem } from '../../common/auth/key-sources';
import { ApiError } from '../../common/errors/api-error';
import { ProjectsService } from '../projects/projects.service';
import { buildRemoteConfig, RemoteConfig } from './remote-config';

@Injectable()
export class RemoteConfigService {
  constructor(private readonly projects: ProjectsService) {}

  /** The remote config of the project a public token names; unknown tokens are 404, as on PostHog. */
  async forToken(token: string): Promise<RemoteConfig> {
    if (projectTokenShapeProblem(token) !== null || (await this.projects.projectIdForToken(token)) === null) throw ApiError.notFound();
    // Feature flags arrive with flag management; until a project has one there is nothing to fetch.
    return buildRemoteConfig(token, false);
  }
}
