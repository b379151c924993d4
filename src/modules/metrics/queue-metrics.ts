import { Injectable, OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { withDeadline } from '../../common/async/with-deadline';
import { PartitionQueues } from '../../queues/partition-queues';
import { MetricsService } from './metrics.service';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** Queue depth per partition and state, read from the backend when /metrics is scraped. */
@Injectable()
export class QueueMetrics implements OnModuleInit {
  constructor(
    private readonly queues: PartitionQueues,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    const queues = this.queues.all;
    new Gauge({
      name: 'ingestion_queue_jobs',
      help: 'Ingestion jobs per queue and state (failed = dead letters)',
      labelNames: ['queue', 'state'],
      registers: [this.metrics.registry],
      // Every process reads the same queues: across an API cluster the depth is one reading, not a sum.
      aggregator: 'max',
      async collect() {
        for (const queue of queues) {
          // A scrape during an outage reports nothing rather than hanging.
          const counts = await withDeadline(queue.getJobCounts(...STATES), 1000, 'queue depth').catch(() => null);
          if (!counts) continue;
          for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
  }
}
