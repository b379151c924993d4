import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { PersonalApiKeyEntity } from '../personal-api-keys/personal-api-key.entity';
import type { MembershipLevel } from '../organizations/organization-membership.entity';
import type { ProjectEntity } from '../projects/project.entity';
import type { UserEntity } from '../users/user.entity';
import { ApiError } from '../../common/errors/api-error';

/** What a management caller may reach: a personal key's scopes and project limits (null or empty: no limit). */
export type CallerGrant = Pick<PersonalApiKeyEntity, 'scopes' | 'scopedProjects'>;

/** A signed-in session reaches everything its user can, as PostHog's own sessions do. */
export const SESSION_GRANT: CallerGrant = { scopes: ['*'], scopedProjects: null };

/** A management caller: the user behind a personal API key, or behind a console session. */
export interface UserPrincipal {
  kind: 'user';
  user: UserEntity;
  key: CallerGrant;
  via: 'personal_key' | 'session';
}

/** A public-endpoint caller: the project its key selects. */
export interface ProjectPrincipal {
  kind: 'project';
  /** Null only on fail-open routes when the key could not be checked; the worker checks it. */
  projectId: number | null;
  token: string;
}

export type Principal = UserPrincipal | ProjectPrincipal;

/** The organization a route's `:organization_id` resolved to, and the caller's membership level in it. */
export interface OrganizationAccess {
  organizationId: string;
  level: MembershipLevel;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** The project named by the route (`:project_id`, `@current`), already access-checked. */
    project?: ProjectEntity;
    organizationAccess?: OrganizationAccess;
  }
}

/** The authenticated user of a personal-key route. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): UserPrincipal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (principal?.kind !== 'user') throw ApiError.serverError();
  return principal;
});

/** The project a route's `:project_id` resolved to. */
export const CurrentProject = createParamDecorator((_: unknown, ctx: ExecutionContext): ProjectEntity => {
  const project = ctx.switchToHttp().getRequest<FastifyRequest>().project;
  if (!project) throw ApiError.serverError();
  return project;
});

/** The project a public (project-key) route is acting for. */
export const CallerProject = createParamDecorator((_: unknown, ctx: ExecutionContext): ProjectPrincipal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (principal?.kind !== 'project') throw ApiError.serverError();
  return principal;
});

/** The organization a route's `:organization_id` resolved to, with the caller's level. */
export const CurrentOrganization = createParamDecorator((_: unknown, ctx: ExecutionContext): OrganizationAccess => {
  const access = ctx.switchToHttp().getRequest<FastifyRequest>().organizationAccess;
  if (!access) throw ApiError.serverError();
  return access;
});
