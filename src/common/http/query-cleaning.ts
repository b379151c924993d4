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
 * Every route reads its query cleaned: search terms, distinct ids and names reach PostgreSQL, which
 * refuses NUL in text, as U+FFFD like everything ingestion stores. Only an escaped NUL can put such text
 * in a query value (invalid UTF-8 such as an encoded surrogate stays percent-encoded text), so the other
 * requests, capture and decide among them, pay one substring test.
 */
export function registerQueryCleaning(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.url.includes('%00')) cleanQuery(request.query as Record<string, unknown>);
    done();
  });
}
