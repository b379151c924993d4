import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import IORedis, { RedisOptions } from 'ioredis';
import { withDeadline } from '../common/async/with-deadline';
import { PartitionQueues } from './partition-queues';
import { QUEUE_CONNECTION, type QueueConnection } from './queue-connection';

const PING_TIMEOUT_MS = 1500;

/** Readiness of the queue backend, and the boot-time check of Redis durability settings. */
@Injectable()
export class QueueHealthService implements OnApplicationBootstrap {
  private readonly logger = new Logger(QueueHealthService.name);

  constructor(
    private readonly queues: PartitionQueues,
    @Inject(QUEUE_CONNECTION) private readonly connection: QueueConnection,
  ) {}

  get backend(): QueueConnection['kind'] {
    return this.connection.kind;
  }

  /** Resolves when the backend answers a cheap read; rejects within PING_TIMEOUT_MS otherwise. */
  async ping(): Promise<void> {
    await withDeadline(this.queues.get(0).getJobCounts('waiting'), PING_TIMEOUT_MS, 'queue ping');
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.connection.kind !== 'redis') return;
    try {
      await this.warnAboutRedisDurability();
    } catch (error) {
      this.logger.warn({ err: error }, 'could not read Redis configuration');
    }
  }

  /** BullMQ on Redis loses acknowledged events without AOF, and jobs without noeviction. */
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
