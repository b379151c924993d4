import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import IORedis, { RedisOptions } from 'ioredis';
import { withDeadline } from '../common/async/with-deadline';
import { ingestionQueueName } from './queue-names';
import { QUEUE_CONNECTION, type QueueConnection } from './queue-connection';

const PING_TIMEOUT_MS = 1500;

/** Readiness of the queue backend, and the boot-time check of Redis durability settings. */
@Injectable()
export class QueueHealthService implements OnApplicationBootstrap {
  private readonly logger = new Logger(QueueHealthService.name);

  constructor(
    @InjectQueue(ingestionQueueName(0)) private readonly queue: Queue,
    @Inject(QUEUE_CONNECTION) private readonly connection: QueueConnection,
  ) {}

  get backend(): QueueConnection['kind'] {
    return this.connection.kind;
  }

  /** Resolves when the backend answers a cheap read; rejects within PING_TIMEOUT_MS otherwise. */
  async ping(): Promise<void> {
    await withDeadline(this.queue.getJobCounts('waiting'), PING_TIMEOUT_MS, 'queue ping');
  }

  async depth(): Promise<Record<string, number>> {
    return withDeadline(this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed'), PING_TIMEOUT_MS, 'queue depth');
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.connection.kind !== 'redis') return;
    try {
      await this.warnAboutRedisDurability();
    } catch (error) {
      this.logger.warn({ err: error }, 'could not read Redis configuration');
    }
  }

  /** BullMQ on Redis loses acknowledged events without AOF, and jobs without noeviction (CONTRACT §1). */
  private async warnAboutRedisDurability(): Promise<void> {
    const client = new IORedis({ ...(this.connection.workerConnection as RedisOptions), lazyConnect: true });
    let appendonly: string;
    let policy: string;
    try {
      await client.connect();
      [, appendonly] = (await client.config('GET', 'appendonly')) as string[];
      [, policy] = (await client.config('GET', 'maxmemory-policy')) as string[];
    } finally {
      client.disconnect();
    }
    if (appendonly !== 'yes') {
      this.logger.warn('Redis runs without AOF (appendonly no): acknowledged events can be lost if Redis restarts.');
    }
    if (policy !== 'noeviction') {
      this.logger.warn(`Redis maxmemory-policy is ${policy}: BullMQ needs noeviction or queued events can be evicted.`);
    }
  }
}
