import { ArgumentsHost, Catch, ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { drainRejectedBody } from './drain-rejected-body';
import { publicRouteOptions } from './public-route';
import { ApiError, ENDPOINT_NOT_FOUND } from '../errors/api-error';
import { toApiError } from '../errors/http-error-mapping';
import { RouteTable } from './route-table';

/** A refused body is read through (and thrown away) up to this many times the body limit, so the client sees the 413. */
const DRAIN_FACTOR = 4;

/** The one place where errors become responses: every body is PostHog's {type, code, detail, attr}. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly routes: RouteTable,
    private readonly maxBodyBytes: number,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const bodyLimit = request.routeOptions?.bodyLimit ?? this.maxBodyBytes;
    const error = this.resolve(exception, request, bodyLimit);
    // A deliberate 503 (queue or database unreachable, draining) is logged where the outage is noticed, once per
    // change of state; one error line with a stack per refused request would bury it.
    if (error.status >= 500 && !(exception instanceof ApiError && error.status === 503)) {
      // The route's pattern, not the URL: a query string may carry a key (`?personal_api_key=`) or a distinct id.
      this.logger.error({ err: exception, reqId: request.id, route: request.routeOptions?.url ?? 'unmatched', method: request.method }, 'request failed');
    }
    if (error.status === 413) drainRejectedBody(request, reply, DRAIN_FACTOR * bodyLimit);
    const adapter = this.adapterHost.httpAdapter;
    // A route may have set its own type (`config.js`, CSV) before failing; the error body is JSON.
    adapter.setHeader(reply, 'content-type', 'application/json; charset=utf-8');
    for (const [name, value] of Object.entries(error.headers)) adapter.setHeader(reply, name, value);
    const errorBody = publicRouteOptions(request)?.errorBody;
    adapter.reply(reply, errorBody ? errorBody(error) : error.toBody(), error.status);
  }

  private resolve(exception: unknown, request: FastifyRequest, bodyLimit: number): ApiError {
    // Nest's own NotFoundException only comes from its unmatched-route handler: services throw ApiError.
    if (exception instanceof NotFoundException) {
      const allowed = this.routes.allowedMethods(request.url);
      // A route that takes this very method and found nothing (a missing file under /api/docs/) is a 404, not a 405.
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      if (allowed.length > 0 && !allowed.includes(method)) return ApiError.methodNotAllowed(request.method, allowed);
      return ApiError.notFound(ENDPOINT_NOT_FOUND);
    }
    return toApiError(exception, bodyLimit);
  }
}
