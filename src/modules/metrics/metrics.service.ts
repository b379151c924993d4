import cluster from 'node:cluster';
import { Injectable } from '@nestjs/common';
import { AggregatorRegistry, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { ApiError } from '../../common/errors/api-error';
import { ChildMetrics, MetricsJson } from './cluster-metrics';

/**
 * One Prometheus registry per process; modules add their own counters to it. In a child of an API
 * cluster (API_PROCESSES > 1) /metrics answers for every process of the cluster (cluster-metrics.ts).
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  /** Metrics kept elsewhere in the process (the analytics thread's), under names this registry does not use. */
  private readonly sources: Array<() => Promise<MetricsJson>> = [];

  private readonly clusterMetrics = cluster.isWorker ? new ChildMetrics(() => this.json()) : null;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  addSource(source: () => Promise<MetricsJson>): void {
    this.sources.push(source);
  }

  /** This process's metrics: its registry's, then its other sources'. */
  async json(): Promise<MetricsJson> {
    const others = await Promise.all(this.sources.map((source) => source()));
    return [...(await this.registry.getMetricsAsJSON()), ...others.flat()];
  }

  async render(): Promise<string> {
    if (!this.clusterMetrics) {
      // The sources' metrics are rendered apart and appended: summing everything through an aggregator would
      // drop the series it omits (process_start_time_seconds).
      const others = await Promise.all(this.sources.map(async (source) => AggregatorRegistry.aggregate([await source()]).metrics()));
      return [await this.registry.metrics(), ...others].join('\n');
    }
    try {
      return await this.clusterMetrics.scrape();
    } catch {
      // Part of the cluster's numbers would read as counter resets: no answer is more honest.
      throw ApiError.unavailable('Metrics of the other processes could not be collected. Please try again.');
    }
  }
}
