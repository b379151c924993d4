import { Controller, Get, Header, HttpCode, Options, Post, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ProjectKeyAuth, ProjectKeyOptions, PublicRoute } from '../../common/auth/auth.decorator';
import { CallerProject, ProjectPrincipal } from '../../common/auth/principal';
import { PublicRouteOptions, PublicSdkRoute } from '../../common/http/public-route';
import { bareGetReply, decideFormat, flagsFormat, replyRequestId } from './decide-responses';
import { DecideService } from './decide.service';

/**
 * Bodies arrive as JSON, gzip (with or without a header), base64 forms or lz64, like capture, but only
 * as the flags service's three content types; a GET without `?data=` gets the flags service's empty reply.
 */
const DECIDE_ROUTE: PublicRouteOptions = {
  decodePayload: true,
  cors: true,
  bodyLimit: (config) => config.flags.maxBodyBytes,
  bodyTypes: ['application/json', 'text/plain', 'application/x-www-form-urlencoded'],
  answerBareGet: (query, requestId) => bareGetReply(query, replyRequestId(requestId), Date.now()),
};
/** A personal key sent in place of the project key must be allowed to read flags. */
const FLAGS_AUTH: ProjectKeyOptions = { personalKeyScopes: ['feature_flag:read'] };
/** The service answers JSON text, which Fastify sends as is under a JSON content type. */
const JSON_TYPE = 'application/json; charset=utf-8';

@ApiTags('flags')
@Controller()
export class DecideController {
  constructor(private readonly decide: DecideService) {}

  @Post('decide')
  @HttpCode(200)
  @ProjectKeyAuth(FLAGS_AUTH)
  @PublicSdkRoute(DECIDE_ROUTE)
  @ApiOperation({ summary: 'Evaluate flags (v1 default: enabled keys; v2 key→value; v3 values and payloads; v4 details) with the config' })
  @ApiOkResponse({ description: 'Flags in the shape of the requested version, plus the config block' })
  @Header('Content-Type', JSON_TYPE)
  decidePost(@CallerProject() caller: ProjectPrincipal, @Req() request: FastifyRequest, @Query() query: Record<string, unknown>) {
    return this.decide.reply(caller, request.body, decideFormat(query), request.id);
  }

  @Get('decide')
  @ProjectKeyAuth(FLAGS_AUTH)
  @PublicSdkRoute(DECIDE_ROUTE)
  @ApiOperation({ summary: 'Decide with the payload in ?data= (base64 or lz64); without ?data= an empty reply (no key needed)' })
  @ApiOkResponse({ description: 'As POST' })
  @Header('Content-Type', JSON_TYPE)
  decideGet(@CallerProject() caller: ProjectPrincipal, @Req() request: FastifyRequest, @Query() query: Record<string, unknown>) {
    return this.decide.reply(caller, request.body, decideFormat(query), request.id);
  }

  @Post('flags')
  @HttpCode(200)
  @ProjectKeyAuth(FLAGS_AUTH)
  @PublicSdkRoute(DECIDE_ROUTE)
  @ApiOperation({ summary: 'Evaluate flags (v1 legacy values and payloads; v2 details); the config with config=true' })
  @ApiOkResponse({ description: 'Flags in the shape of the requested version' })
  @Header('Content-Type', JSON_TYPE)
  flagsPost(@CallerProject() caller: ProjectPrincipal, @Req() request: FastifyRequest, @Query() query: Record<string, unknown>) {
    return this.decide.reply(caller, request.body, flagsFormat(query), request.id);
  }

  @Get('flags')
  @ProjectKeyAuth(FLAGS_AUTH)
  @PublicSdkRoute(DECIDE_ROUTE)
  @ApiOperation({ summary: 'Flags with the payload in ?data= (base64 or lz64); without ?data= an empty reply (no key needed)' })
  @ApiOkResponse({ description: 'As POST' })
  @Header('Content-Type', JSON_TYPE)
  flagsGet(@CallerProject() caller: ProjectPrincipal, @Req() request: FastifyRequest, @Query() query: Record<string, unknown>) {
    return this.decide.reply(caller, request.body, flagsFormat(query), request.id);
  }

  /** CORS preflight: the hooks add the headers. */
  @Options(['decide', 'flags'])
  @HttpCode(204)
  @PublicRoute()
  @PublicSdkRoute(DECIDE_ROUTE)
  preflight() {
    return undefined;
  }
}
