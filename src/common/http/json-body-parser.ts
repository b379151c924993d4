import type { FastifyInstance } from 'fastify';
import secureJsonParse from 'secure-json-parse';
import { ApiError } from '../errors/api-error';

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

/** Replaces Fastify's JSON parser so that parse failures carry PostHog's error body. */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser(['application/json']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(String(body)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
