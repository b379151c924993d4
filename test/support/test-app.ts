import { Writable } from 'node:stream';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import IORedis from 'ioredis';
import { AppModule, RuntimeOptions } from '../../src/app.module';
import { createRootLogger } from '../../src/common/logging/logger';
import { loadConfig } from '../../src/config/app-config';
import { createHttpApp } from '../../src/roles/http-app';
import { BootstrapKeys, ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { configureQueueConnection } from '../../src/queues/queue-connection';
import { HttpClient } from './http-client';
import { clickHouseDatabase, databaseUrl, PAYLOAD_WORKER_SCRIPT, runId, TEST_POSTGRES_URL, TEST_REDIS_URL, templateDatabaseName, testDataDir } from './test-env';

export interface TestApp {
  app: NestFastifyApplication;
  runtime: RuntimeOptions;
  baseUrl: string;
  databaseUrl: string;
  keys: BootstrapKeys;
  http: HttpClient;
  /** Runs SQL against this file's database (test setup and assertions only). */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** `redis` (default) runs BullMQ on the machine's Redis; `postgres` uses the embedded default backend. */
  queue?: 'redis' | 'postgres';
  env?: Record<string, string>;
  /** Collects the app's log lines (level info and up), parsed, instead of discarding them. */
  logs?: Array<Record<string, unknown>>;
  /** The built web console to serve (createHttpApp's default: dist/console). */
  consoleDir?: string;
}

function logSink(lines: Array<Record<string, unknown>>): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      done();
    },
  });
}

/** A fresh database cloned from the migrated template, so every file starts from the same empty state. */
export async function createTestDatabase(): Promise<string> {
  const name = `hogbase_t${runId()}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabaseName()}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(name);
}

/** Boots the real HTTP application (same factory as production) on an ephemeral port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const url = await createTestDatabase();
  const prefix = `hbt${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    DATABASE_URL: url,
    ...(options.queue === 'postgres' ? {} : { REDIS_URL: TEST_REDIS_URL }),
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    ROLE: 'api',
    DATA_DIR: testDataDir(),
    CLICKHOUSE_DATABASE: clickHouseDatabase(url),
    ...options.env,
  });
  const logger = options.logs ? createRootLogger('info', logSink(options.logs)) : createRootLogger(process.env.DEBUG_LOGS ? 'error' : 'silent');
  const { app, runtime, baseUrl } = await listeningApi(config, url, logger, options.consoleDir);
  const keys = await app.get(ProvisioningService).bootstrapIfEmpty();
  if (!keys) throw new Error('test database was not empty');
  const pool = new Client({ connectionString: url });
  // The global teardown drops the database with FORCE; a late notice of that is no test failure.
  pool.on('error', () => undefined);
  await pool.connect();
  return {
    app,
    runtime,
    baseUrl,
    databaseUrl: url,
    keys,
    http: new HttpClient(baseUrl, keys.personalApiKey),
    sql: async (text, params) => (await pool.query(text, params)).rows,
    close: async () => {
      await app.close();
      await pool.end();
      if (options.queue !== 'postgres') await deleteRedisKeys(prefix);
    },
  };
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new IORedis(TEST_REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The HTTP application built as production builds it, listening on an ephemeral loopback port. */
async function listeningApi(config: ReturnType<typeof loadConfig>, url: string, logger: ReturnType<typeof createRootLogger>, consoleDir?: string) {
  const runtime: RuntimeOptions = { config, databaseUrl: url, queue: configureQueueConnection(config, url) };
  const app = await createHttpApp(runtime, logger, { payloadWorkerScript: PAYLOAD_WORKER_SCRIPT, consoleDir });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, runtime, baseUrl: `http://127.0.0.1:${port}` };
}

/** Another API on the same database and queues with some settings changed (in this process), and its HTTP client. */
export async function startExtraApi(t: TestApp, env: Record<string, string>): Promise<{ app: NestFastifyApplication; http: HttpClient; baseUrl: string; close(): Promise<void> }> {
  const config = loadConfig({
    DATABASE_URL: t.databaseUrl, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: t.runtime.config.queue.prefix, LOG_LEVEL: 'silent', ROLE: 'api',
    DATA_DIR: testDataDir(), CLICKHOUSE_DATABASE: clickHouseDatabase(t.databaseUrl), ...env,
  });
  const { app, baseUrl } = await listeningApi(config, t.databaseUrl, createRootLogger('silent'));
  return { app, baseUrl, http: new HttpClient(baseUrl, t.keys.personalApiKey), close: () => app.close() };
}

/** Another worker process on the same database and queues (in this process, as its own Nest context). */
export async function startExtraWorker(t: TestApp): Promise<INestApplicationContext> {
  const config = { ...t.runtime.config, role: 'worker' as const };
  const runtime: RuntimeOptions = { config, databaseUrl: t.databaseUrl, queue: configureQueueConnection(config, t.databaseUrl) };
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(runtime), { logger: false });
  await context.init();
  return context;
}
