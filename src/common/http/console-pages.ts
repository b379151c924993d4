import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { ApiError } from '../errors/api-error';

/**
 * The paths the console's own router draws: each answers with its single page, so a reload or a shared link opens the
 * right screen. Anything else (the API under /api/, the SDK routes) stays the server's.
 */
const CONSOLE_PAGES: readonly string[] = [
  '/', '/login', '/events',
  '/insights', '/insights/*', '/dashboards', '/dashboards/*', '/persons', '/persons/*',
  '/feature_flags', '/feature_flags/*', '/data-management/*',
];

/** The page loads only this server's bundle and calls only this server's API; its components set inline styles. */
const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";

/** vite names every asset after its content hash, so a name never changes meaning and may be kept for a year. */
const ASSET_MAX_AGE = '365d';

const CONSOLE_NOT_BUILT = 'The web console was not built: run `npm run build`. The API and its docs (/api/docs/) work without it.';

/**
 * Serves the console built into `dir` (index.html and hashed files under assets/). The page is public: its data comes
 * from the API, which checks the session cookie. A server run from sources without a build answers `/` with a 404
 * that says how to build it.
 */
export function registerConsole(app: NestFastifyApplication, dir: string): void {
  const fastify = app.getHttpAdapter().getInstance();
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    fastify.get('/', () => {
      throw ApiError.notFound(CONSOLE_NOT_BUILT);
    });
    return;
  }
  serveAssets(app, join(dir, 'assets'));
  servePages(fastify, readFileSync(indexFile));
}

function serveAssets(app: NestFastifyApplication, root: string): void {
  if (!existsSync(root)) return;
  app.useStaticAssets({
    root,
    prefix: '/assets/',
    // The build's files are known at start, one route each; any other name under /assets/ is the API's 404.
    wildcard: false,
    // swagger-ui registers the plugin too, with the reply decorator.
    decorateReply: false,
    maxAge: ASSET_MAX_AGE,
    immutable: true,
    index: false,
  });
}

function servePages(fastify: FastifyInstance, page: Buffer): void {
  const handler: RouteHandlerMethod = (_request, reply) => {
    // A new build changes the assets' names, so the page is checked on every visit.
    reply.header('cache-control', 'no-cache').header('content-security-policy', PAGE_POLICY).type('text/html; charset=utf-8');
    return reply.send(page);
  };
  for (const url of CONSOLE_PAGES) fastify.get(url, handler);
}
