import { Module } from '@nestjs/common';
import { CaptureV1Controller } from './capture-v1/capture-v1.controller';
import { CaptureV1Service } from './capture-v1/capture-v1.service';
import { CaptureController } from './capture.controller';
import { CaptureService } from './capture.service';
import { IngestionMetricsModule } from './ingestion-metrics.module';
import { IngestionProducer } from './ingestion-producer';

/** The API half of ingestion: decode, validate, enqueue. The worker half is IngestionWorkerModule. */
@Module({
  imports: [IngestionMetricsModule],
  controllers: [CaptureController, CaptureV1Controller],
  providers: [CaptureService, CaptureV1Service, IngestionProducer],
})
export class IngestionModule {}
