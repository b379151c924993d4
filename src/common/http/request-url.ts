import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

let configuredPublicUrl: string | null = null;

/** Set once at boot: the base URL to use for absolute links when a proxy rewrites Host. */
export function setPublicUrl(url: string | null): void {
  configuredPublicUrl = url;
}

/** The absolute URL the client used, for building pagination links. */
export function absoluteRequestUrl(request: FastifyRequest): URL {
  const base = configuredPublicUrl ?? `${request.protocol}://${request.host}`;
  return new URL(request.url, base);
}

export const RequestUrl = createParamDecorator((_: unknown, ctx: ExecutionContext): URL =>
  absoluteRequestUrl(ctx.switchToHttp().getRequest<FastifyRequest>()),
);
