import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PublicRoute } from '../../common/auth/auth.decorator';
import { HealthService } from './health.service';

@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** Liveness: the process is up and serving. */
  @Get('_health')
  @HttpCode(200)
  @PublicRoute()
  live() {
    return { status: 'ok' };
  }

  /** Readiness: the database and the queue both answer. 503 while either does not, or while draining. */
  @Get('_readyz')
  @PublicRoute()
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.health.readiness();
    reply.status(report.status === 'ok' ? 200 : 503);
    return report;
  }
}
