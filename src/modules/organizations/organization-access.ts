import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import type { MembershipLevel } from './organization-membership.entity';

/** The organization a route's `:organization_id` resolved to, and the caller's membership level in it. */
export interface OrganizationAccess {
  organizationId: string;
  level: MembershipLevel;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth guard on routes that name an organization. */
    organizationAccess?: OrganizationAccess;
  }
}

/** The organization a route's `:organization_id` resolved to, with the caller's level. */
export const CurrentOrganization = createParamDecorator((_: unknown, ctx: ExecutionContext): OrganizationAccess => {
  const access = ctx.switchToHttp().getRequest<FastifyRequest>().organizationAccess;
  if (!access) throw ApiError.serverError();
  return access;
});
