import { CliServices, runCli } from '../../src/cli/cli-commands';
import { AnalyticsCopy } from '../../src/modules/analytics/copy/analytics-copy.service';
import { PersonalApiKeysService } from '../../src/modules/personal-api-keys/personal-api-keys.service';
import { ProjectsService } from '../../src/modules/projects/projects.service';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { UsersService } from '../../src/modules/users/users.service';
import { DeadLettersService } from '../../src/queues/dead-letters.service';
import type { TestApp } from './test-app';

/** The CLI's services, taken from a running test app, as the CLI entry point takes them from its context. */
export function cliServices(t: TestApp): CliServices {
  return {
    provisioning: t.app.get(ProvisioningService),
    users: t.app.get(UsersService),
    projects: t.app.get(ProjectsService),
    keys: t.app.get(PersonalApiKeysService),
    deadLetters: t.app.get(DeadLettersService),
  };
}

/** Runs one CLI command line in-process; returns its exit code and printed lines. */
export async function runCliOn(t: TestApp, ...argv: string[]): Promise<{ code: number; lines: string[]; output: string }> {
  const lines: string[] = [];
  const services = cliServices(t);
  const analytics = { rebuildOrRequest: (progress: (copied: number) => void) => t.app.get(AnalyticsCopy).rebuildOrRequest(progress) };
  const code = await runCli({ services: async () => services, analytics: async () => analytics, out: (line) => lines.push(line) }, argv);
  return { code, lines, output: lines.join('\n') };
}
