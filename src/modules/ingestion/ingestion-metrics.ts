import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service';

/** Counters of the ingestion path, registered in the process registry served at /metrics. */
@Injectable()
export class IngestionMetrics {
  readonly received: Counter<'path'>;
  readonly enqueued: Counter;
  readonly dropped: Counter<'reason'>;
  readonly persisted: Counter;
  readonly duplicates: Counter;
  readonly lag: Histogram;

  constructor(metrics: MetricsService) {
    const registers = [metrics.registry];
    this.received = new Counter({ name: 'ingestion_events_received_total', help: 'Events received by capture', labelNames: ['path'], registers });
    this.enqueued = new Counter({ name: 'ingestion_events_enqueued_total', help: 'Events acknowledged by the queue', registers });
    this.dropped = new Counter({ name: 'ingestion_events_dropped_total', help: 'Events dropped, by reason', labelNames: ['reason'], registers });
    this.persisted = new Counter({ name: 'ingestion_events_persisted_total', help: 'Events stored by the workers', registers });
    this.duplicates = new Counter({ name: 'ingestion_events_duplicate_total', help: 'Events skipped as already stored (same uuid)', registers });
    this.lag = new Histogram({
      name: 'ingestion_lag_seconds',
      help: 'Time from capture to storage',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
  }
}
