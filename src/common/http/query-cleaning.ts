import type { FastifyInstance } from 'fastify';
import { cleanString } from '../json/clean-text';

/** Query values with NUL or lone surrogates (`?search=%00`) cleaned in place, as JSON bodies are. */
export function cleanQuery(query: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(query)) {
    if (typeof value === 'string') query[key] = cleanString(value);
    else if (Array.isArray(value)) query[key] = value.map((item) => (typeof item === 'string' ? cleanString(item) : item));
  }
}

/**
 * Every route reads its query cleaned: search terms, distinct ids and filters reach PostgreSQL, which
 * refuses NUL and lone surrogates in text, as U+FFFD like everything ingestion stores.
 */
export function registerQueryCleaning(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.query && typeof request.query === 'object') cleanQuery(request.query as Record<string, unknown>);
    done();
  });
}
