import { Injectable } from '@nestjs/common';
import { projectTokenShapeProblem } from '../../common/auth/key-sources';
import { ApiError } from '../../common/errors/api-error';
import { FlagSnapshotsService } from '../decide/flag-snapshots.service';
import { ProjectsService } from '../projects/projects.service';
import { buildRemoteConfig, RemoteConfig } from '../decide/remote-config-json';

@Injectable()
export class RemoteConfigService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly snapshots: FlagSnapshotsService,
  ) {}

  /** The remote config of the project a public token names; unknown tokens are 404, as on PostHog. */
  async forToken(token: string): Promise<RemoteConfig> {
    const projectId = projectTokenShapeProblem(token) === null ? await this.projects.projectIdForToken(token) : null;
    if (projectId === null) throw ApiError.notFound();
    return buildRemoteConfig(token, await this.hasActiveFlags(projectId));
  }

  /** posthog-js skips the flags request when this is false; if flags cannot be read, it had better ask. */
  private async hasActiveFlags(projectId: number): Promise<boolean> {
    try {
      return (await this.snapshots.get(projectId)).flags.some((flag) => flag.active);
    } catch {
      return true;
    }
  }
}
