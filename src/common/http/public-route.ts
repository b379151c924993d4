import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import type { ApiError } from '../errors/api-error';

/** Fastify route options of the public SDK routes (capture, decide), read by the HTTP hooks. */
export interface PublicRouteOptions {
  /**
   * The body stays raw bytes (it may be gzip, a base64 form or lz64) and the payload (body or `?data=`)
   * is decoded into JSON before the guard runs (modules/ingestion/payload).
   */
  decodePayload: boolean;
  /** Answer CORS like PostHog's capture: echo the Origin, allow credentials. */
  cors: boolean;
  /**
   * The media types a body may be sent as; payload decoding refuses a body of any other type with 400
   * (the flags service takes JSON, text and forms only). A body without a type is decoded as any other.
   * Without the list every type is read as the payload, as capture does.
   */
  bodyTypes?: readonly string[];
  /**
   * The route's own limit on the body, as received and as decoded, in place of `MAX_BODY_BYTES` and
   * `MAX_DECOMPRESSED_BYTES` (flag evaluation reads every byte it is sent, on the event loop).
   */
  bodyLimit?: (config: AppConfig) => number;
  /** A capture route: a large payload's events come back from the payload worker as jobs ready for the queues. */
  prepareCapture?: boolean;
  /** `[]` and `{"batch": []}` reach the route instead of answering `no_data`. */
  acceptEmptyList?: boolean;
  /** Legacy capture paths unwrap base64 twice. */
  legacyBase64?: boolean;
  /**
   * The reply to a GET or HEAD without `?data=`, sent before decoding and auth (the flags service
   * answers such a request with an empty result); without it such a request is decoded as any other.
   */
  answerBareGet?: (query: Record<string, unknown>, requestId: string) => string;
  /** Checks run on the headers before the body is decoded (capture v1 refuses a request by its headers first). */
  checkHeaders?: (headers: FastifyRequest['headers']) => void;
  /** The route's own error body (capture v1 answers `{error, error_description, error_uri}`); PostHog's otherwise. */
  errorBody?: (error: ApiError) => unknown;
}

const KEY = 'hogbasePublic';

export const PublicSdkRoute = (options: PublicRouteOptions) => RouteConfig({ [KEY]: options });

/** The options a route's Fastify `config` carries, if it is a public SDK route. */
export function publicOptionsOfRoute(config: unknown): PublicRouteOptions | undefined {
  return (config as Record<string, unknown> | undefined)?.[KEY] as PublicRouteOptions | undefined;
}

export function publicRouteOptions(request: FastifyRequest): PublicRouteOptions | undefined {
  return publicOptionsOfRoute(request.routeOptions?.config);
}
