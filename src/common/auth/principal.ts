import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';

/** What a management caller may reach: a personal key's scopes and project limits (null or empty: no limit). */
export interface CallerGrant {
  scopes: string[] | null;
  scopedProjects: number[] | null;
}

/** A signed-in session reaches everything its user can, as PostHog's own sessions do. */
export const SESSION_GRANT: CallerGrant = { scopes: ['*'], scopedProjects: null };

/**
 * The stored user behind a management call, as routes read it. The guard puts the users module's row here; this
 * folder names only the fields, so that every module can use the auth vocabulary without importing the users module.
 */
export interface CallerUser {
  id: number;
  uuid: string;
  distinctId: string;
  email: string;
  firstName: string;
  lastName: string;
  isActive: boolean;
  isStaff: boolean;
  currentOrganizationId: string | null;
  currentProjectId: number | null;
  dateJoined: Date;
}

/** A management caller: the user behind a personal API key, or behind a console session. */
export interface UserPrincipal {
  kind: 'user';
  user: CallerUser;
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

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The authenticated user of a personal-key route. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): UserPrincipal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (principal?.kind !== 'user') throw ApiError.serverError();
  return principal;
});

/** The project a public (project-key) route is acting for. */
export const CallerProject = createParamDecorator((_: unknown, ctx: ExecutionContext): ProjectPrincipal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (principal?.kind !== 'project') throw ApiError.serverError();
  return principal;
});
