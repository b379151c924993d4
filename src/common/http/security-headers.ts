import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { ApiError, ENDPOINT_NOT_FOUND } from '../errors/api-error';
import { publicRouteOptions } from './public-route';

/**
 * Every reply, errors included: a browser never guesses a type other than the one sent (a JSON body holding
 * user text is not run as HTML), and no other site may frame a page of ours (the docs) to steal clicks.
 * fetch and XHR, which the SDKs use, ignore all three, and a script's own headers do not restrict it.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
};

/** swagger-ui's source maps serve its developers, not readers of the docs: they answer as unknown paths do. */
const refuseSourceMaps: onRequestHookHandler = (request, _reply, done) => {
  // The wildcard is decoded, so `%2Emap` is caught too.
  const file = (request.params as Record<string, string | undefined>)['*'] ?? '';
  done(/\.map\/*$/i.test(file) ? ApiError.notFound(ENDPOINT_NOT_FOUND) : undefined);
};

/**
 * The headers above on every reply, and `Cache-Control: no-store` on every reply but the SDK routes' (management
 * replies carry API tokens and e-mail addresses). A route's own value wins: local evaluation revalidates with its
 * ETag, remote config may be cached a minute. `docsPath` is where swagger-ui's files are served.
 */
export function registerSecurityHeaders(fastify: FastifyInstance, docsPath: string): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
    if (!reply.hasHeader('cache-control') && publicRouteOptions(request) === undefined) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
  fastify.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`${docsPath}/`) || !route.url.endsWith('*')) return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, refuseSourceMaps];
  });
}
