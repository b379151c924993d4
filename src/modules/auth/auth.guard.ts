import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { OrganizationsService } from '../organizations/organizations.service';
import { PersonalApiKeysService } from '../personal-api-keys/personal-api-keys.service';
import { ProjectEntity } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import { csrfFailed } from '../sessions/sessions.errors';
import { CSRF_HEADER, sessionTokenOf } from '../sessions/session-cookies';
import { sameToken, SessionsService } from '../sessions/sessions.service';
import { UsersService } from '../users/users.service';
import { ApiError } from '../../common/errors/api-error';
import { queryText } from '../../common/http/query-values';
import { parseId, UUID_PATTERN } from '../../common/validation/patterns';
import { AUTH_METADATA, AuthRequirement } from '../../common/auth/auth.decorator';
import { AuthErrors } from '../../common/auth/auth-errors';
import { bearerToken, findPersonalApiKey, findProjectIdParam, findProjectToken, projectTokenShapeProblem } from '../../common/auth/key-sources';
import { FailedAttempts } from '../../common/auth/failed-attempts';
import { checkMetricsToken, tokenDigest } from './metrics-token';
import { projectRestriction, Scope, scopeSatisfied } from '../../common/auth/scopes';
import { SESSION_GRANT, UserPrincipal } from '../../common/auth/principal';
import { OrganizationAccess } from '../organizations/organization-access';

type PersonalKeyRequirement = Extract<AuthRequirement, { kind: 'personalKey' }>;
type ProjectKeyRequirement = Extract<AuthRequirement, { kind: 'projectKey' }>;

/** Methods that change nothing, which a session may use without its CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Failed personal-key attempts are counted per address in windows of this length. */
const FAILED_ATTEMPTS_WINDOW_MS = 60_000;

/** The one global guard: every route says whether it wants a personal key, a project key, the metrics token, or nobody. */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly failedAttempts: FailedAttempts;
  /** METRICS_TOKEN's digest, computed once; null while /metrics is off. */
  private readonly metricsToken: Buffer | null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly reflector: Reflector,
    private readonly keys: PersonalApiKeysService,
    private readonly users: UsersService,
    private readonly projects: ProjectsService,
    private readonly organizations: OrganizationsService,
    private readonly sessions: SessionsService,
  ) {
    this.failedAttempts = new FailedAttempts(config.auth.failedAttemptsPerMinute, FAILED_ATTEMPTS_WINDOW_MS);
    this.metricsToken = config.metrics.token === null ? null : tokenDigest(config.metrics.token);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<AuthRequirement | undefined>(AUTH_METADATA, [
      context.getHandler(),
      context.getClass(),
    ]);
    // The boot-time audit makes this unreachable; failing closed keeps a forgotten route private.
    if (!requirement) throw ApiError.serverError();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (requirement.kind === 'public') return true;
    if (requirement.kind === 'metricsToken') {
      checkMetricsToken(this.metricsToken, request.headers.authorization);
      return true;
    }
    if (requirement.kind === 'projectKey') {
      const token = requirement.bearer ? bearerToken(request.headers.authorization) : findProjectToken(request.body, request.query);
      return this.authenticateProjectKey(request, token, requirement);
    }
    const principal = await this.authenticateUser(request);
    await this.authorize(request, principal, requirement);
    return true;
  }

  /**
   * PostHog's order: a key limited to some projects first (it reaches only routes that name one of them), then the
   * scope, then the project or organization the route names.
   */
  private async authorize(request: FastifyRequest, principal: UserPrincipal, requirement: PersonalKeyRequirement): Promise<void> {
    const namesProject = requirement.projectParam !== undefined || requirement.projectFromToken === true;
    if (!namesProject && !requirement.servesRestrictedKeys && projectRestriction(principal.key) !== null) {
      throw AuthErrors.restrictedKeyOutsideProjects();
    }
    if (!scopeSatisfied(principal.key.scopes, requirement.scope)) throw AuthErrors.missingScope(requirement.scope);
    if (requirement.projectParam) {
      const raw = (request.params as Record<string, string>)[requirement.projectParam];
      request.project = await this.resolveProject(principal, raw);
    }
    if (requirement.projectFromToken) request.project = await this.resolveProjectByToken(principal, request.query);
    if (requirement.organizationParam) {
      const raw = (request.params as Record<string, string>)[requirement.organizationParam];
      request.organizationAccess = await this.resolveOrganization(principal, raw);
    }
  }

  private async authenticateUser(request: FastifyRequest): Promise<UserPrincipal> {
    const found = findPersonalApiKey(request.headers.authorization, request.body, request.query);
    if (!found) {
      const principal = await this.sessionUser(request);
      request.principal = principal;
      return principal;
    }
    const principal = await this.checkedKeyOwner(request, found.key);
    if (!principal) throw AuthErrors.invalidPersonalKey(found.source, found.key);
    request.principal = principal;
    return principal;
  }

  /**
   * The user of a console session (the `sessionid` cookie), who may reach what their user can. A write must echo the
   * session's CSRF token (`X-CSRFToken`), so another site cannot make one with the cookie the browser adds.
   */
  private async sessionUser(request: FastifyRequest): Promise<UserPrincipal> {
    const token = sessionTokenOf(request);
    if (!token) throw AuthErrors.notAuthenticated();
    const session = await this.sessions.session(token);
    const user = session ? await this.users.findById(session.userId) : null;
    if (!session || !user?.isActive) throw AuthErrors.sessionEnded();
    if (!SAFE_METHODS.has(request.method) && !sameToken(request.headers[CSRF_HEADER], session.csrfToken)) throw csrfFailed();
    return { kind: 'user', user, key: SESSION_GRANT, via: 'session' };
  }

  /** The owner of a personal key; an address that sent too many unknown keys is refused before its key is looked up. */
  private async checkedKeyOwner(request: FastifyRequest, key: string): Promise<UserPrincipal | null> {
    const wait = this.failedAttempts.retryAfterSeconds(request.ip);
    if (wait !== null) throw AuthErrors.tooManyFailedAttempts(wait);
    const owner = await this.keyOwner(key);
    if (!owner) this.failedAttempts.recordFailure(request.ip);
    return owner;
  }

  /** The user behind a personal key; a key of a deactivated user counts as no key. */
  private async keyOwner(value: string): Promise<UserPrincipal | null> {
    const key = await this.keys.findByValue(value);
    const user = key ? await this.users.findById(key.userId) : null;
    return key && user?.isActive ? { kind: 'user', user, key, via: 'personal_key' } : null;
  }

  /** `:project_id` → an access-checked project, in the order that never reveals a project to a restricted key. */
  private async resolveProject(principal: UserPrincipal, raw: string | undefined): Promise<ProjectEntity> {
    let projectId: number | null;
    if (raw === '@current') projectId = principal.user.currentProjectId;
    else projectId = parseId(raw);
    if (projectId === null) throw AuthErrors.projectNotFound();
    const restriction = projectRestriction(principal.key);
    if (restriction && !restriction.has(projectId)) {
      throw AuthErrors.keyNotScopedToProject(String(projectId));
    }
    const project = await this.projects.findById(projectId);
    if (!project) throw AuthErrors.projectNotFound();
    const level = await this.organizations.membershipLevel(principal.user.id, project.organizationId);
    if (level === null) throw AuthErrors.noProjectAccess();
    return project;
  }

  /** Local evaluation names its project by API key (`?token=`), as the SDKs send it; an unknown key is 401. */
  private async resolveProjectByToken(principal: UserPrincipal, query: unknown): Promise<ProjectEntity> {
    const token = queryText((query as Record<string, unknown> | undefined)?.token);
    if (token === undefined || token === '') return this.resolveProject(principal, '@current');
    const projectId = projectTokenShapeProblem(token) === null ? await this.projects.projectIdForToken(token) : null;
    if (projectId === null) throw AuthErrors.invalidProjectKey();
    return this.resolveProject(principal, String(projectId));
  }

  /** `:organization_id` → the organization and the caller's level in it; non-members see nothing. */
  private async resolveOrganization(principal: UserPrincipal, raw: string | undefined): Promise<OrganizationAccess> {
    const organizationId = raw === '@current' ? principal.user.currentOrganizationId : raw;
    if (!organizationId || !UUID_PATTERN.test(organizationId)) throw AuthErrors.organizationNotFound();
    const level = await this.organizations.membershipLevel(principal.user.id, organizationId);
    if (level === null) throw AuthErrors.organizationNotFound();
    return { organizationId, level };
  }

  /**
   * Public SDK routes: a project API key, or a personal key plus `project_id`.
   * The token cache keeps this off the database on the hot paths.
   */
  private async authenticateProjectKey(request: FastifyRequest, token: string | null, requirement: ProjectKeyRequirement): Promise<boolean> {
    if (!token) throw AuthErrors.missingProjectKey();
    const problem = projectTokenShapeProblem(token);
    if (problem) throw AuthErrors.malformedProjectKey(problem);
    if (token.startsWith('phx_')) return this.authenticatePersonalKeyForProject(request, token, requirement.personalKeyScopes);
    let projectId: number | null;
    try {
      projectId = await this.projects.projectIdForToken(token);
    } catch (error) {
      // The database is unreachable: capture accepts (the worker validates later) so nothing is lost.
      if (!requirement.failOpen) throw ApiError.unavailable('Unable to verify the project API key. Please try again.');
      request.principal = { kind: 'project', projectId: null, token };
      return true;
    }
    if (projectId === null) throw AuthErrors.invalidProjectKey();
    request.principal = { kind: 'project', projectId, token };
    return true;
  }

  private async authenticatePersonalKeyForProject(request: FastifyRequest, token: string, scopes: Scope[]): Promise<boolean> {
    const rawProjectId = findProjectIdParam(request.body, request.query);
    if (!rawProjectId) throw AuthErrors.invalidProject();
    const owner = await this.checkedKeyOwner(request, token);
    if (!owner) throw AuthErrors.invalidPersonalKeyOnPublicRoute();
    const missing = scopes.find((scope) => !scopeSatisfied(owner.key.scopes, scope));
    if (missing) throw AuthErrors.missingScope(missing);
    let project: ProjectEntity;
    try {
      project = await this.resolveProject(owner, rawProjectId);
    } catch (error) {
      // Public endpoints answer every refusal (unknown, not a member, key limited) the same way, as PostHog.
      if (error instanceof ApiError) throw AuthErrors.invalidPersonalKeyOnPublicRoute();
      throw error;
    }
    request.principal = { kind: 'project', projectId: project.id, token: project.apiToken };
    return true;
  }
}
