import { Module } from '@nestjs/common';
import { IngestionMetrics } from './ingestion-metrics';

/** Shared by the API and worker halves, so the `all` role registers each metric once. */
@Module({ providers: [IngestionMetrics], exports: [IngestionMetrics] })
export class IngestionMetricsModule {}
