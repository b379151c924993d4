import { Controller, Get, HttpCode, Options, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProjectKeyAuth, PublicRoute } from '../../common/auth/auth.decorator';
import { CallerProject, ProjectPrincipal } from '../../common/auth/principal';
import { PublicRouteOptions, PublicSdkRoute } from '../../common/http/public-route';
import { CAPTURE_AUTH } from './capture-events';
import { CaptureService } from './capture.service';
import { CaptureReplyDto } from './dto/capture.dto';

/** Every path the PostHog SDKs send events to. */
const CAPTURE_PATHS = ['capture', 'batch', 'e', 'i/v0/e', 'track', 'engage'];
const CAPTURE_ROUTE: PublicRouteOptions = { decodePayload: true, cors: true, legacyBase64: true, prepareCapture: true };

@ApiTags('ingestion')
@Controller()
export class CaptureController {
  constructor(private readonly capture: CaptureService) {}

  @Post(CAPTURE_PATHS)
  @HttpCode(200)
  @ProjectKeyAuth(CAPTURE_AUTH)
  @PublicSdkRoute(CAPTURE_ROUTE)
  @ApiOperation({ summary: 'Capture one event, an array of events, or a {api_key, batch} body (JSON, gzip, base64 or lz64)' })
  @ApiOkResponse({ type: CaptureReplyDto })
  post(@CallerProject() caller: ProjectPrincipal, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.handle(caller, request, reply);
  }

  @Get(CAPTURE_PATHS)
  @HttpCode(200)
  @ProjectKeyAuth(CAPTURE_AUTH)
  @PublicSdkRoute(CAPTURE_ROUTE)
  @ApiOperation({ summary: 'Capture with the payload in ?data= (base64 or lz64)' })
  @ApiOkResponse({ type: CaptureReplyDto })
  get(@CallerProject() caller: ProjectPrincipal, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.handle(caller, request, reply);
  }

  /** CORS preflight: the hooks add the headers; PostHog answers with the normal success body. */
  @Options(CAPTURE_PATHS)
  @HttpCode(200)
  @PublicRoute()
  @PublicSdkRoute(CAPTURE_ROUTE)
  preflight() {
    return { status: 1 };
  }

  private async handle(caller: ProjectPrincipal, request: FastifyRequest, reply: FastifyReply) {
    const query = request.query as Record<string, unknown>;
    const decoded = request.decodedPayload;
    const context = { path: request.routeOptions.url ?? request.url, query, ip: request.ip ?? null, nowMs: Date.now() };
    if (decoded?.capture) await this.capture.acceptPrepared(caller, decoded.capture, context.path);
    else await this.capture.accept(caller, request.body, { ...context, decodedLength: decoded?.decodedLength ?? 0, needsCleaning: decoded?.needsCleaning ?? true });
    // sendBeacon callers get 204; everyone else exactly 200, or posthog-js retries
    if (query.beacon === '1') {
      reply.status(204);
      return undefined;
    }
    return { status: 1 };
  }
}
