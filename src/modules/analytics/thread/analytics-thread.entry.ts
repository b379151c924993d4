import 'reflect-metadata';
import { parentPort, workerData } from 'node:worker_threads';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Metric } from 'prom-client';
import { ApiError } from '../../../common/errors/api-error';
import type { RuntimeOptions } from '../../../app.module';
import { createRootLogger } from '../../../common/logging/logger';
import { loadConfig } from '../../../config/app-config';
import { createHttpApp } from '../../../http-app';
import { configureQueueConnection } from '../../../queues/queue-connection';
import { MetricsService } from '../../metrics/metrics.service';
import { errorReply, type FromThread, type ThreadReply, type ThreadStart, type ToThread } from './analytics-thread';

/**
 * The analytics thread (see AnalyticsThread): the API application built as the HTTP thread builds it,
 * on the same configuration and database, answering the requests it is handed through Fastify's
 * `inject` instead of a socket. It runs no ingestion workers, no migrations and no provisioning (the
 * process that started it did those); what every API application does at boot it does too: its own
 * database pools, queue producer connections, the event partition check, the flag snapshot timer and
 * the queue's durability warning.
 */

/** Only the thread's insight metrics are reported: the process-wide ones are the HTTP thread's. */
const OWN_METRICS = /^analytics_/;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

async function serve(): Promise<void> {
  const port = parentPort!;
  const { databaseUrl } = workerData as ThreadStart;
  const config = { ...loadConfig(), role: 'api' as const };
  const logger = createRootLogger(config.log.level).child({ thread: 'analytics' });
  const runtime: RuntimeOptions = { config, databaseUrl, queue: configureQueueConnection(config, databaseUrl) };
  const app = await createHttpApp(runtime, logger, { analyticsThread: false });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.ready();
  const metrics = app.get(MetricsService);
  const send = (message: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  port.on('message', (message: ToThread) => {
    if (message.type === 'close') return void close(app);
    if (message.type === 'metrics') {
      // Only these are collected: collecting the others would also run their probes (queue depths in Redis).
      const own = metrics.registry.getMetricsAsArray().filter((metric) => OWN_METRICS.test(metric.name)) as unknown as Metric[];
      void Promise.all(own.map((metric) => metric.get()))
        .catch(() => [])
        .then((collected) => send({ type: 'metrics', id: message.id, metrics: collected }));
      return;
    }
    const { method, url, headers, body, remoteAddress } = message.request;
    void fastify
      .inject({ method: method as 'GET', url, headers: headers as Record<string, string>, payload: body ? Buffer.from(body) : undefined, remoteAddress })
      .then((response): ThreadReply => {
        const reply: ThreadReply = { status: response.statusCode, headers: {}, body: new Uint8Array(response.rawPayload) };
        for (const [name, value] of Object.entries(response.headers)) if (!HOP_BY_HOP.has(name)) reply.headers[name] = value;
        return reply;
      })
      // inject answers every handler error itself; anything that still escapes must not end the thread (and its copies).
      .catch((error: Error): ThreadReply => {
        logger.error({ err: error }, 'analytics thread could not answer a request');
        return errorReply(ApiError.serverError());
      })
      .then((reply) => send({ type: 'reply', id: message.id, reply }, [reply.body.buffer as ArrayBuffer]));
  });
  send({ type: 'ready' });
}

async function close(app: NestFastifyApplication): Promise<void> {
  await app.close().catch(() => undefined);
  process.exit(0);
}

serve().catch((error: Error) => {
  // The HTTP thread keeps serving insights itself; this line says why the thread is not there.
  createRootLogger('error').error({ err: error }, 'analytics thread could not start');
  process.exit(1);
});
