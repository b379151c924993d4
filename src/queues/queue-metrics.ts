import { getQueueToken } from '@nestjs/bullmq';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import { withDeadline } from '../common/async/with-deadline';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from '../modules/metrics/metrics.service';
import { ingestionQueueNames } from './queue-names';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Queue depth per partition and state, read from the backend when /metrics is scraped. */
@Injectable()
export class QueueMetrics implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    const queues = ingestionQueueNames(this.config.ingestion.partitions).map(
      (name) => [name, this.moduleRef.get<Queue>(getQueueToken(name), { strict: false })] as const,
    );
    new Gauge({
      name: 'ingestion_queue_jobs',
      help: 'Ingestion jobs per queue and state (failed = dead letters)',
      labelNames: ['queue', 'state'],
      registers: [this.metrics.registry],
      async collect() {
        for (const [name, queue] of queues) {
          // A scrape during an outage reports nothing rather than hanging.
          const counts = await withDeadline(queue.getJobCounts(...STATES), 1000, 'queue depth').catch(() => null);
          if (!counts) continue;
          for (const state of STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        }
      },
    });
  }
}
