import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';
import { SECURITY_HEADERS } from './security-headers';

/** Longest path segment a route parameter takes; longer ones are refused before routing (414). */
export const MAX_PARAM_LENGTH = 500;

/**
 * Errors Fastify raises before any route runs, in PostHog's envelope instead of Fastify's: a path that is
 * not valid percent-encoded UTF-8 (`/api/projects/%ff/`), or a parameter longer than MAX_PARAM_LENGTH.
 */
export function frameworkError(error: Error & { code?: string }): ApiError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new ApiError(414, 'invalid_request', 'uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`);
  }
  if (error.code === 'FST_ERR_BAD_URL') return new ApiError(400, 'invalid_request', 'invalid_url', 'The URL path is not valid percent-encoded UTF-8.');
  return new ApiError(400, 'invalid_request', 'invalid_request', 'The request could not be routed.');
}

export function replyFrameworkError(error: Error, _request: FastifyRequest, reply: FastifyReply): void {
  const apiError = frameworkError(error);
  // No hook runs for a request that was never routed: the headers of every reply are set here.
  reply.code(apiError.status).headers({ ...SECURITY_HEADERS, 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' });
  reply.send(JSON.stringify(apiError.toBody()));
}

/** Node's HTTP parser errors (a request that never arrives, headers over the limit), written on the socket. */
export function clientErrorReply(error: Error & { code?: string }): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError(408, 'invalid_request', 'request_timeout', 'The request was not received in time.');
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'invalid_request', 'request_header_fields_too_large', 'The request line and headers are larger than the server accepts.');
  }
  return new ApiError(400, 'invalid_request', 'bad_request', 'The request could not be parsed as HTTP.');
}

/** Fastify's default client error handler, with the body in PostHog's envelope. */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = clientErrorReply(error);
  const body = JSON.stringify(apiError.toBody());
  const security = Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\n${security}Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
