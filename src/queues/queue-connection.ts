import { createPostgresBackend, setDefaultBackendFactory } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/app-config';

export const QUEUE_CONNECTION = Symbol('QUEUE_CONNECTION');

export type QueueBackendKind = 'redis' | 'postgres';

export interface QueueConnection {
  kind: QueueBackendKind;
  /** What BullMQ's `connection` option receives for workers (block and retry forever). */
  workerConnection: unknown;
  /** For producers on the API: fail fast so capture can answer 503 instead of hanging. */
  producerConnection: unknown;
  /** Redis key prefix; the PostgreSQL backend namespaces by schema instead. */
  prefix: string;
}

/** Parses a redis:// URL into ioredis options (ioredis does not accept a URL inside an options object). */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: Number.isInteger(db) ? db : 0,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
  };
}

/**
 * Chooses the BullMQ backend: Redis when REDIS_URL is set (production), otherwise BullMQ's
 * PostgreSQL backend on the service's own database, so the embedded default needs only Node.
 * The PostgreSQL choice is process-wide in BullMQ, hence the explicit call here at boot.
 */
export function configureQueueConnection(config: AppConfig, databaseUrl: string): QueueConnection {
  const prefix = config.queue.prefix;
  if (config.redis.url) {
    // Back to BullMQ's default (Redis) in case this process configured PostgreSQL before (tests do).
    setDefaultBackendFactory();
    const base = redisOptionsFromUrl(config.redis.url);
    return {
      kind: 'redis',
      prefix,
      workerConnection: { ...base, maxRetriesPerRequest: null },
      producerConnection: {
        ...base,
        // Commands fail at once while Redis is unreachable instead of queueing in memory.
        enableOfflineQueue: false,
        maxRetriesPerRequest: null,
        connectTimeout: 2000,
      },
    };
  }
  setDefaultBackendFactory(createPostgresBackend);
  const connection = { connectionString: databaseUrl, schema: `${prefix}_queue`, migrate: true, max: 8 };
  return { kind: 'postgres', prefix, workerConnection: connection, producerConnection: connection };
}
