import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import { ApiError } from '../errors/api-error';
import { cleanJson, JSON_TEXT_NEEDS_CLEANING } from '../json/clean-text';
import { MAX_JSON_DEPTH, parsedJsonTooDeep } from '../json/json-depth';
import { mediaType } from './media-type';
import { publicRouteOptions } from './public-route';

function parseError(reason: string): ApiError {
  return new ApiError(400, 'invalid_request', 'parse_error', `JSON parse error - ${reason}`);
}

/**
 * Parse a JSON body into a value; `__proto__` / `constructor.prototype` keys are refused, never merged.
 * Nesting is bounded, as on capture, so validation and class-transformer (both recursive) cannot
 * overflow the stack; NUL and lone surrogates become U+FFFD, as ingestion stores them, so no field of any
 * route can reach PostgreSQL as text it refuses.
 */
export function parseJsonBody(text: string): unknown {
  // DRF treats an empty JSON body as an empty object; so do we.
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw parseError(error instanceof Error ? error.message : 'invalid JSON');
  }
  if (parsedJsonTooDeep(text, value, MAX_JSON_DEPTH)) throw parseError(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
  return JSON_TEXT_NEEDS_CLEANING.test(text) ? cleanJson(value) : value;
}

const JSON_TYPE = /^application\/(.+\+)?json\b/;

function unsupportedMediaType(type: string): ApiError {
  return new ApiError(415, 'invalid_request', 'unsupported_media_type', `Unsupported media type "${type}" in request.`);
}

/**
 * One parser for every content type. SDK routes (capture, decide) keep the raw bytes: they may be gzip
 * sent as text/plain, base64 forms or lz64, decoded later by modules/ingestion/payload. Management routes take
 * JSON only, with PostHog's error bodies.
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer | string, done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    if (publicRouteOptions(request)?.decodePayload) return done(null, bytes);
    const type = mediaType(request.headers['content-type']);
    if (type !== '' && !JSON_TYPE.test(type)) return done(unsupportedMediaType(type), undefined);
    try {
      done(null, parseJsonBody(bytes.toString('utf8')));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
