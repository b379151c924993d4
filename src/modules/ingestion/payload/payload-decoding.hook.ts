import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../common/errors/api-error';
import { publicRouteOptions } from '../../../common/http/public-route';
import { requestHeader } from '../../../common/http/request-header';
import type { AppConfig } from '../../../config/app-config';
import { decodePayload, hasQueryPayload, type LocatedPayload } from './payload-decoding';
import type { PayloadWorker } from './payload-worker';
import type { WorkerDecoded } from './worker-protocol';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The decoded payload of a public SDK route (its value is also the body), with its size and whether its strings
     * need cleaning; for a large capture payload, its events as the payload worker prepared them.
     */
    decodedPayload?: WorkerDecoded;
  }
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
 * Decodes the payload of every public SDK route that asks (`decodePayload`) before the guard runs, so the guard finds
 * the project key inside gzip or base64 bodies. Large payloads go to the payload worker; a capture route's
 * (`prepareCapture`) come back as jobs ready for the queues.
 */
export function registerPayloadDecoding(fastify: FastifyInstance, config: AppConfig, worker: PayloadWorker | null): void {
  fastify.addHook('preHandler', async (request, reply) => {
    const options = publicRouteOptions(request);
    if (!options?.decodePayload || request.method === 'OPTIONS') return;
    const query = request.query as Record<string, unknown>;
    if (options.answerBareGet && (request.method === 'GET' || request.method === 'HEAD') && !hasQueryPayload(query)) {
      return reply.type('application/json').send(options.answerBareGet(query, request.id));
    }
    options.checkHeaders?.(request.headers);
    // A route with a limit of its own holds it decoded too (set on the route by common/http's onRoute hook).
    const maxDecompressedBytes = options.bodyLimit ? request.routeOptions.bodyLimit : config.ingestion.maxDecompressedBytes;
    const decodeOptions = { maxDecompressedBytes, unwrapBase64Twice: options.legacyBase64, bodyTypes: options.bodyTypes, acceptEmptyList: options.acceptEmptyList };
    const raw = { body: Buffer.isBuffer(request.body) ? request.body : undefined, contentType: requestHeader(request, 'content-type'), contentEncoding: requestHeader(request, 'content-encoding'), query };
    // Only a large payload needs capture's context: the worker runs the rest of capture on it.
    const large = (located: LocatedPayload) => {
      const capture = options.prepareCapture ? { path: request.routeOptions.url ?? request.url, query, ip: request.ip ?? null, nowMs: Date.now(), partitions: config.ingestion.partitions } : undefined;
      return worker!.decode(located, decodeOptions, capture);
    };
    const decoded: WorkerDecoded = await decodePayload(raw, decodeOptions, worker ? large : undefined).catch((error: unknown) => delayDecompressionBomb(request, error));
    request.body = decoded.value;
    request.decodedPayload = decoded;
  });
}
