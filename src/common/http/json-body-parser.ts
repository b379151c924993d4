import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import { ApiError } from '../errors/api-error';
import { publicRouteOptions } from './public-route';

/** Parse a JSON body into a value; `__proto__` / `constructor.prototype` keys are refused, never merged. */
export function parseJsonBody(text: string): unknown {
  // DRF treats an empty JSON body as an empty object; so do we.
  if (text.trim() === '') return {};
  try {
    return secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'invalid JSON';
    throw new ApiError(400, 'invalid_request', 'parse_error', `JSON parse error - ${reason}`);
  }
}

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

function unsupportedMediaType(type: string): ApiError {
  return new ApiError(415, 'invalid_request', 'unsupported_media_type', `Unsupported media type "${type}" in request.`);
}

/**
 * One parser for every content type. SDK routes (capture, decide) keep the raw bytes: they may be gzip
 * sent as text/plain, base64 forms or lz64, decoded later by payload-decoding. Management routes take
 * JSON only, with PostHog's error bodies.
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer | string, done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    if (publicRouteOptions(request)?.decodePayload) return done(null, bytes);
    const type = (request.headers['content-type'] ?? '').split(';')[0].trim();
    if (type !== '' && !JSON_TYPE.test(type)) return done(unsupportedMediaType(type), undefined);
    try {
      done(null, parseJsonBody(bytes.toString('utf8')));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
