import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { RuntimeOptions } from '../app.module';
import { AppModule } from '../app.module';
import { ApiExceptionFilter } from '../common/http/api-exception.filter';
import { RouteTable } from '../common/http/route-table';
import { handleClientError, MAX_PARAM_LENGTH, replyFrameworkError } from '../common/http/framework-errors';
import { registerConsole } from '../common/http/console-pages';
import { registerBodyParsers } from '../common/http/json-body-parser';
import { registerPublicRouteHooks } from '../common/http/public-route-hooks';
import { registerQueryCleaning } from '../common/http/query-cleaning';
import { setPublicUrl } from '../common/http/request-url';
import { registerSecurityHeaders } from '../common/http/security-headers';
import { ShadowedRouteGuard } from '../common/http/shadowed-route.guard';
import { PinoNestLogger } from '../common/logging/logger';
import { completeOpenApiDocument } from '../common/openapi/complete-document';
import { createValidationPipe } from '../common/validation/validation.pipe';
import { registerPayloadDecoding } from '../modules/ingestion/payload/payload-decoding.hook';
import { PayloadWorker } from '../modules/ingestion/payload/payload-worker';
import { MetricsService } from '../modules/metrics/metrics.service';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Where swagger-ui is served: the interactive docs beside the OpenAPI document. */
const DOCS_PATH = 'api/docs';
/** Where the console's build lands (src/console/vite.config.mts), from dist/roles/http-app.js and from src/roles/http-app.ts alike. */
const CONSOLE_DIR = resolve(__dirname, '..', '..', 'dist', 'console');

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the application, as registered (405 answers, and the tests that walk every route). */
    routeTable: RouteTable;
  }
}

export interface HttpAppOptions {
  /** The compiled payload worker's thread, for applications run from sources (tests); beside its module by default. */
  payloadWorkerScript?: string;
  /** The built web console (index.html and assets/); dist/console by default. */
  consoleDir?: string;
}

/** Builds the Fastify-backed Nest application exactly as production runs it; tests use the same. */
export async function createHttpApp(runtime: RuntimeOptions, logger: Logger, options: HttpAppOptions = {}): Promise<NestFastifyApplication> {
  const { config } = runtime;
  const routes = new RouteTable();
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.maxBodyBytes,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors raised before any route runs still answer in PostHog's envelope.
    frameworkErrors: replyFrameworkError,
    clientErrorHandler: handleClientError,
    trustProxy: config.http.trustProxy,
    // A client's own id is kept when it looks sane, so logs can be joined across services.
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    logger: false,
    // Slow or stalled clients cannot hold sockets forever.
    requestTimeout: config.http.requestTimeoutMs,
    // Node enforces these only when it checks connections (every 30 s by default); partial headers
    // fall under headersTimeout, which would otherwise stay at 60 s.
    http: {
      connectionsCheckingInterval: Math.min(1000, config.http.requestTimeoutMs),
      headersTimeout: config.http.requestTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
    } as never,
    connectionTimeout: 60_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // No Nest middleware is used: without middie every request skips its hook.
    skipMiddie: true,
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  fastify.decorate('routeTable', routes);
  registerSecurityHeaders(fastify, `/${DOCS_PATH}`);
  registerBodyParsers(fastify);
  registerQueryCleaning(fastify);
  const payloadWorker = PayloadWorker.create({ maxWaitingBytes: config.ingestion.maxWaitingPayloadBytes, maxDecompressedBytes: config.ingestion.maxDecompressedBytes }, options.payloadWorkerScript);
  fastify.addHook('onClose', async () => payloadWorker?.close());
  registerPublicRouteHooks(fastify, config);
  registerPayloadDecoding(fastify, config, payloadWorker);
  setPublicUrl(config.http.publicUrl);

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(runtime), adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
    // Body parsing is ours (common/http): errors must come out in PostHog's shape.
    bodyParser: false,
  });
  app.useGlobalFilters(new ApiExceptionFilter(app.get(HttpAdapterHost), routes, config.http.maxBodyBytes));
  app.useGlobalGuards(new ShadowedRouteGuard(routes));
  app.useGlobalPipes(createValidationPipe());
  instrument(app, app.get(MetricsService));
  mountOpenApi(app, config.version);
  registerConsole(app, options.consoleDir ?? CONSOLE_DIR);
  await app.init();
  return app;
}

function instrument(app: NestFastifyApplication, metrics: MetricsService): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
}

/** OpenAPI JSON at /api/schema/ and the interactive docs at /api/docs/. */
function mountOpenApi(app: NestFastifyApplication, version: string): void {
  const document = completeOpenApiDocument(SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('hogbase')
      .setDescription('A self-hostable backend that speaks PostHog\'s public API.')
      .setVersion(version)
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'phx_ personal API key', description: 'Personal API key (phx_…)' })
      .build(),
  ));
  SwaggerModule.setup(DOCS_PATH, app, document, { jsonDocumentUrl: 'api/schema', raw: ['json'] });
}
