import { Module } from '@nestjs/common';
import { CaptureController } from './capture.controller';
import { CaptureService } from './capture.service';
import { IngestionMetrics } from './ingestion-metrics';
import { IngestionProducer } from './ingestion-producer';

/** The API half of ingestion: decode, validate, enqueue. The worker half is IngestionWorkerModule. */
@Module({
  controllers: [CaptureController],
  providers: [CaptureService, IngestionProducer, IngestionMetrics],
  exports: [IngestionMetrics],
})
export class IngestionModule {}
