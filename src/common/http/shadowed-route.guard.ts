import { CanActivate, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';
import { RouteTable } from './route-table';

const SHADOWABLE = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A request that reached a parametrised route although its path names a more literal route of other methods
 * (`PATCH persons/bulk_delete/` on `PATCH persons/:id/`) gets the 405 PostHog gives (RouteTable.allowedMethods).
 * Routes without parameters cannot stand in for another, so /decide/, /flags/ and capture skip the lookup.
 */
export class ShadowedRouteGuard implements CanActivate {
  constructor(private readonly routes: RouteTable) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!request.routeOptions.url?.includes(':') || !SHADOWABLE.has(request.method)) return true;
    // Fastify answers HEAD with the GET route's handler.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const allowed = this.routes.allowedMethods(request.url);
    if (!allowed.includes(method)) throw ApiError.methodNotAllowed(request.method, allowed);
    return true;
  }
}
