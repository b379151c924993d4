import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ApiError } from '../common/errors/api-error';
import { ownValue } from '../common/json/json-object';
import { MembershipLevel } from '../modules/organizations/organization-membership.entity';
import { PersonalApiKeysService } from '../modules/personal-api-keys/personal-api-keys.service';
import { ProjectsService } from '../modules/projects/projects.service';
import { ProvisioningService } from '../modules/provisioning/provisioning.service';
import { UsersService } from '../modules/users/users.service';
import { DeadLettersService } from '../queues/dead-letters.service';

/** The analytics copy, opened only for `analytics` commands (it opens the ClickHouse engine). */
export interface CliAnalytics {
  rebuildOrRequest(progress: (copied: number) => void): Promise<'rebuilt' | 'requested'>;
}

export interface CliServices {
  provisioning: ProvisioningService;
  users: UsersService;
  projects: ProjectsService;
  keys: PersonalApiKeysService;
  deadLetters: DeadLettersService;
}

/** What the commands need. Services are opened only when a command runs, so `--help` needs no database. */
export interface CliContext {
  services: () => Promise<CliServices>;
  analytics: () => Promise<CliAnalytics>;
  out: (line: string) => void;
}

const LEVELS: Record<string, MembershipLevel> = {
  member: MembershipLevel.Member,
  admin: MembershipLevel.Admin,
  owner: MembershipLevel.Owner,
};

function positiveInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a positive integer.');
  return Number(value);
}

function idList(value: string): number[] {
  return value.split(',').map((part) => positiveInt(part.trim()));
}

function level(value: string): MembershipLevel {
  const found = ownValue(LEVELS, value);
  if (found === undefined) throw new InvalidArgumentError(`must be one of ${Object.keys(LEVELS).join(', ')}.`);
  return found;
}

/** The `npm run cli -- …` program. Errors are thrown as CommanderError so callers choose how to exit. */
export function buildCli(ctx: CliContext): Command {
  const program = new Command('hogbase')
    .description('Manage users, projects and API keys of a hogbase installation.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => ctx.out(text.trimEnd()), writeErr: (text) => ctx.out(text.trimEnd()) });
  addOrganizationCommands(program, ctx);
  addUserCommands(program, ctx);
  addProjectCommands(program, ctx);
  addKeyCommands(program, ctx);
  addDeadLetterCommands(program, ctx);
  addAnalyticsCommands(program, ctx);
  return program;
}

function addAnalyticsCommands(program: Command, ctx: CliContext): void {
  const analytics = program.command('analytics').description('Maintain the ClickHouse copy that insights read.');
  analytics
    .command('rebuild')
    .description('Rebuild the copy from PostgreSQL (the system of record), or ask the running service to.')
    .action(async () => {
      const copy = await ctx.analytics();
      const outcome = await copy.rebuildOrRequest((copied) => ctx.out(`copied ${copied} events`));
      ctx.out(outcome === 'rebuilt'
        ? 'Rebuilt the analytics copy from PostgreSQL.'
        : 'The analytics engine is open in the running service: it rebuilds the copy at its next refresh (see its log).');
    });
}

function addOrganizationCommands(program: Command, ctx: CliContext): void {
  const organizations = program.command('organizations').description('Create organizations.');
  organizations
    .command('create')
    .description('Create an organization with one project, owned by an existing user.')
    .requiredOption('--name <name>', 'the organization name')
    .requiredOption('--owner <email>', 'the e-mail of the user who owns it')
    .action(async (opts: { name: string; owner: string }) => {
      const { provisioning } = await ctx.services();
      const { organizationId, project } = await provisioning.createOrganization(opts.name, opts.owner);
      ctx.out(`Created organization ${organizationId} with project ${project.id}. Project API key: ${project.apiToken}`);
    });
}

function addUserCommands(program: Command, ctx: CliContext): void {
  const users = program.command('users').description('Create and list users, and set their passwords.');
  users
    .command('create')
    .description('Create a user and add them to an organization (the first one unless --organization is given).')
    .requiredOption('--email <email>', 'the e-mail address (unique, case-insensitive)')
    .option('--level <level>', 'membership level: member, admin or owner', level, MembershipLevel.Member)
    .option('--organization <uuid>', 'organization id')
    .action(async (opts: { email: string; level: MembershipLevel; organization?: string }) => {
      const { provisioning } = await ctx.services();
      const user = await provisioning.createUser({ email: opts.email, level: opts.level, organizationId: opts.organization });
      ctx.out(`Created user ${user.id} <${user.email}> (uuid ${user.uuid}).`);
    });
  users
    .command('set-password')
    .description("Set a user's console password and end their sessions; without --password one is generated and printed.")
    .requiredOption('--email <email>', "the user's e-mail address")
    .option('--password <password>', 'the new password (at least 8 characters); beware: it stays in your shell history')
    .action(async (opts: { email: string; password?: string }) => {
      const { provisioning } = await ctx.services();
      const password = await provisioning.setPassword(opts.email, opts.password);
      ctx.out(opts.password === undefined ? `New password for ${opts.email}: ${password}` : `Password set for ${opts.email}; their sessions have ended.`);
    });
  users
    .command('list')
    .description('List every user.')
    .action(async () => {
      const { users } = await ctx.services();
      for (const user of await users.listAll()) ctx.out(`${user.id}\t${user.email}\t${user.isActive ? 'active' : 'inactive'}`);
    });
}

function addProjectCommands(program: Command, ctx: CliContext): void {
  const projects = program.command('projects').description('Create, list and rotate the keys of projects.');
  projects
    .command('create')
    .description('Create a project and print its project API key.')
    .requiredOption('--name <name>', 'the project name')
    .option('--organization <uuid>', 'organization id (default: the first organization)')
    .action(async (opts: { name: string; organization?: string }) => {
      const { provisioning } = await ctx.services();
      const project = await provisioning.createProject(opts.name, opts.organization);
      ctx.out(`Created project ${project.id} "${project.name}". Project API key: ${project.apiToken}`);
    });
  projects
    .command('list')
    .description('List every project with its project API key.')
    .action(async () => {
      const { projects } = await ctx.services();
      for (const project of await projects.listAll()) ctx.out(`${project.id}\t${project.apiToken}\t${project.name}`);
    });
  projects
    .command('rotate-key')
    .description('Replace a project API key; the old key stops working.')
    .argument('<project-id>', 'the project id', positiveInt)
    .action(async (projectId: number) => {
      const { provisioning } = await ctx.services();
      const token = await provisioning.rotateProjectKey(projectId);
      ctx.out(`New project API key for project ${projectId}: ${token}`);
    });
}

function addKeyCommands(program: Command, ctx: CliContext): void {
  const keys = program.command('keys').description('Create and list personal API keys.');
  keys
    .command('create')
    .description('Create a personal API key; the secret is printed once and never stored.')
    .requiredOption('--email <email>', 'the user who owns the key')
    .option('--label <label>', 'a name to recognise the key by', 'CLI key')
    .option('--scopes <scopes>', 'comma-separated scopes, e.g. feature_flag:write,person:read (default *)', '*')
    .option('--projects <ids>', 'comma-separated project ids the key is limited to', idList)
    .action(async (opts: { email: string; label: string; scopes: string; projects?: number[] }) => {
      const scopes = opts.scopes.split(',').map((scope) => scope.trim()).filter(Boolean);
      const { provisioning } = await ctx.services();
      const value = await provisioning.createPersonalKey({ email: opts.email, label: opts.label, scopes, projectIds: opts.projects ?? null });
      ctx.out(`Personal API key (shown once): ${value}`);
    });
  keys
    .command('list')
    .description('List personal API keys, masked.')
    .action(async () => {
      const { keys } = await ctx.services();
      for (const key of await keys.listAll()) {
        ctx.out(`${key.id}\tuser ${key.userId}\t${key.maskValue}\t${(key.scopes ?? ['*']).join(',')}\t${key.label}`);
      }
    });
}

function addDeadLetterCommands(program: Command, ctx: CliContext): void {
  const dlq = program.command('dlq').description('Inspect and replay ingestion jobs that failed for good (the dead-letter queue).');
  dlq
    .command('list')
    .description('List failed ingestion jobs: reference, when, how many events, why.')
    .option('--limit <n>', 'at most this many', positiveInt, 100)
    .action(async (opts: { limit: number }) => {
      const { deadLetters } = await ctx.services();
      const letters = await deadLetters.list(opts.limit);
      ctx.out(`${letters.length} dead-lettered job(s)`);
      for (const letter of letters) ctx.out(`${letter.ref}\t${letter.failedAt ?? '-'}\t${letter.events} events\t${letter.reason}`);
    });
  dlq
    .command('replay')
    .description('Put failed jobs back on their queue (all of them, or the references given). Events already stored are not stored twice.')
    .argument('[refs...]', 'references from `dlq list`, e.g. ingestion-0:42')
    .option('--all', 'replay every failed job')
    .action(async (refs: string[], opts: { all?: boolean }) => {
      if (refs.length === 0 && !opts.all) throw new InvalidArgumentError('give job references or --all.');
      const { deadLetters } = await ctx.services();
      ctx.out(`Replayed ${await deadLetters.replay(opts.all ? [] : refs)} job(s).`);
    });
}

/** Runs one command line; returns the exit code (0 ok, 1 refused by the service, 2 usage error). */
export async function runCli(ctx: CliContext, argv: string[]): Promise<number> {
  try {
    await buildCli(ctx).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version'
        ? 0
        : 2;
    }
    if (error instanceof ApiError) {
      ctx.out(`error: ${error.detail}`);
      return 1;
    }
    throw error;
  }
}
