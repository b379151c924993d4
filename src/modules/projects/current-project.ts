import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import type { ProjectEntity } from './project.entity';

declare module 'fastify' {
  interface FastifyRequest {
    /** The project named by the route (`:project_id`, `@current`), already access-checked by the auth guard. */
    project?: ProjectEntity;
  }
}

/** The project a route's `:project_id` resolved to. */
export const CurrentProject = createParamDecorator((_: unknown, ctx: ExecutionContext): ProjectEntity => {
  const project = ctx.switchToHttp().getRequest<FastifyRequest>().project;
  if (!project) throw ApiError.serverError();
  return project;
});
