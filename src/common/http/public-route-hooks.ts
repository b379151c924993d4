import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { publicOptionsOfRoute, publicRouteOptions } from './public-route';
import { requestHeader } from './request-header';

/** PostHog's capture CORS: any origin, echoed, with credentials (rust/capture router.rs). */
function applyCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = requestHeader(request, 'origin');
  reply.header('access-control-allow-origin', origin ?? '*');
  if (origin) reply.header('access-control-allow-credentials', 'true');
  reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
  const requested = requestHeader(request, 'access-control-request-headers');
  reply.header('access-control-allow-headers', requested ?? 'Content-Type, Authorization');
  reply.header('access-control-max-age', '86400');
  reply.header('vary', 'Origin');
}

/**
 * CORS on every reply of a public SDK route (errors included, so browsers can read them), and a route's own body
 * limit. Its payload is decoded by the ingestion module's hook (modules/ingestion/payload).
 */
export function registerPublicRouteHooks(fastify: FastifyInstance, config: AppConfig): void {
  fastify.addHook('onRoute', (route) => {
    const limit = publicOptionsOfRoute(route.config)?.bodyLimit;
    if (limit) route.bodyLimit = limit(config);
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (publicRouteOptions(request)?.cors) applyCors(request, reply);
    done();
  });
}
