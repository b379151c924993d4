import { Controller, HttpCode, Options, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProjectKeyAuth, PublicRoute } from '../../../common/auth/auth.decorator';
import { CallerProject, ProjectPrincipal } from '../../../common/auth/principal';
import { PublicRouteOptions, PublicSdkRoute } from '../../../common/http/public-route';
import { CAPTURE_AUTH } from '../capture-events';
import { captureV1ErrorBody } from './capture-v1-reply';
import { parseCaptureV1Headers } from './capture-v1-request';
import { CaptureV1Service } from './capture-v1.service';

const V1_PATH = 'i/v1/analytics/events';
const V1_ROUTE: PublicRouteOptions = {
  decodePayload: true,
  cors: true,
  acceptEmptyList: true,
  checkHeaders: (headers) => void parseCaptureV1Headers(headers),
  errorBody: captureV1ErrorBody,
};

@ApiTags('ingestion')
@Controller()
export class CaptureV1Controller {
  constructor(private readonly capture: CaptureV1Service) {}

  @Post(V1_PATH)
  @HttpCode(200)
  @ProjectKeyAuth({ ...CAPTURE_AUTH, bearer: true })
  @PublicSdkRoute(V1_ROUTE)
  @ApiOperation({ summary: "Capture v1 (posthog-python's capture_mode=\"v1\"): a batch with a result per event" })
  @ApiHeader({ name: 'Authorization', required: true, description: 'Bearer <project API key>' })
  @ApiHeader({ name: 'PostHog-Sdk-Info', required: true, description: '<lib>/<version>, stored as $lib and $lib_version' })
  @ApiHeader({ name: 'PostHog-Attempt', required: true })
  @ApiHeader({ name: 'PostHog-Request-Id', required: true, description: 'A UUID, echoed in the reply' })
  @ApiHeader({ name: 'PostHog-Request-Timestamp', required: true, description: "The client's clock (RFC 3339), for skew correction" })
  @ApiBody({ schema: { type: 'object', required: ['created_at', 'batch'], properties: { created_at: { type: 'string' }, historical_migration: { type: 'boolean' }, batch: { type: 'array', items: { type: 'object' } } } } })
  @ApiOkResponse({ schema: { type: 'object', properties: { results: { type: 'object', additionalProperties: { type: 'object', properties: { result: { type: 'string', enum: ['ok', 'drop'] }, details: { type: 'string' } } } } } } })
  async post(@CallerProject() caller: ProjectPrincipal, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const headers = parseCaptureV1Headers(request.headers);
    reply.header('posthog-request-id', headers.requestId);
    return this.capture.accept(caller, {
      headers,
      body: request.body,
      ip: request.ip ?? null,
      decodedLength: request.decodedPayload?.decodedLength ?? 0,
      needsCleaning: request.decodedPayload?.needsCleaning ?? true,
    });
  }

  @Options(V1_PATH)
  @HttpCode(204)
  @PublicRoute()
  @PublicSdkRoute(V1_ROUTE)
  preflight() {
    return undefined;
  }
}
