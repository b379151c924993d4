import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';
import type { HeldStrings } from '../json/held-strings';
import type { LargePayloadDecoder } from './large-payload-decoder';
import { decodePayload, hasQueryPayload } from './payload-decoding';
import type { AppConfig } from '../../config/app-config';
import { publicOptionsOfRoute, publicRouteOptions } from './public-route';

declare module 'fastify' {
  interface FastifyRequest {
    /** Characters of the decoded payload text: no event inside can be bigger. */
    decodedPayloadLength?: number;
    /** Whether strings of the payload may hold NUL or lone surrogates. */
    payloadNeedsCleaning?: boolean;
    /** Positions of the payload's events over the route's `measureItemsAbove`, when measured while parsing. */
    oversizePayloadItems?: number[];
    /** The payload's long property strings, held off the event loop's heap (markers in the body), when the route asks. */
    heldStrings?: HeldStrings;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** PostHog's capture CORS: any origin, echoed, with credentials (rust/capture router.rs). */
function applyCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = header(request, 'origin');
  reply.header('access-control-allow-origin', origin ?? '*');
  if (origin) reply.header('access-control-allow-credentials', 'true');
  reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
  const requested = header(request, 'access-control-request-headers');
  reply.header('access-control-allow-headers', requested ?? 'Content-Type, Authorization');
  reply.header('access-control-max-age', '86400');
  reply.header('vary', 'Origin');
}

/**
 * How long a payload refused for its decompressed size waits for its 413. A gzip bomb is refused from its trailer
 * in well under a millisecond, so a sender that sends the next one as soon as it is answered would flood the event
 * loop with bodies to read; held (without its body) it costs a timer. SDKs never send such payloads.
 */
export const DECOMPRESSION_BOMB_DELAY_MS = 1000;

async function delayDecompressionBomb(request: FastifyRequest, error: unknown): Promise<never> {
  if (error instanceof ApiError && error.status === 413) {
    request.body = undefined;
    await delay(DECOMPRESSION_BOMB_DELAY_MS);
  }
  throw error;
}

/**
 * CORS on every reply of a public SDK route (errors included, so browsers can read them), and payload
 * decoding before the guard runs, so the guard finds the project key inside gzip or base64 bodies.
 */
export function registerPublicRouteHooks(fastify: FastifyInstance, config: AppConfig, largeDecoder: LargePayloadDecoder | null): void {
  fastify.addHook('onRoute', (route) => {
    const limit = publicOptionsOfRoute(route.config)?.bodyLimit;
    if (limit) route.bodyLimit = limit(config);
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (publicRouteOptions(request)?.cors) applyCors(request, reply);
    done();
  });
  fastify.addHook('preHandler', async (request, reply) => {
    const options = publicRouteOptions(request);
    if (!options?.decodePayload || request.method === 'OPTIONS') return;
    const query = request.query as Record<string, unknown>;
    if (options.answerBareGet && (request.method === 'GET' || request.method === 'HEAD') && !hasQueryPayload(query)) {
      return reply.type('application/json').send(options.answerBareGet(query, request.id));
    }
    options.checkHeaders?.(request.headers);
    const raw = Buffer.isBuffer(request.body) ? request.body : undefined;
    // A route with a limit of its own holds it decoded too (set on the route by the onRoute hook above).
    const maxDecompressedBytes = options.bodyLimit ? request.routeOptions.bodyLimit : config.ingestion.maxDecompressedBytes;
    const decoded = await decodePayload(
      {
        body: raw,
        contentType: header(request, 'content-type'),
        contentEncoding: header(request, 'content-encoding'),
        query,
      },
      { maxDecompressedBytes, largeDecoder, measureItemsAbove: options.measureItemsAbove, holdStringsAbove: options.holdStringsAbove, unwrapBase64Twice: options.legacyBase64, bodyTypes: options.bodyTypes, acceptEmptyList: options.acceptEmptyList },
    ).catch((error: unknown) => delayDecompressionBomb(request, error));
    request.body = decoded.value;
    request.decodedPayloadLength = decoded.decodedLength;
    request.payloadNeedsCleaning = decoded.needsCleaning;
    request.oversizePayloadItems = decoded.oversizeItems;
    request.heldStrings = decoded.held;
  });
}
