import { Module } from '@nestjs/common';
import { CaptureController } from './capture.controller';
import { CaptureService } from './capture.service';
import { IngestionMetricsModule } from './ingestion-metrics.module';
import { IngestionProducer } from './ingestion-producer';

/** The API half of ingestion: decode, validate, enqueue. The worker half is IngestionWorkerModule. */
@Module({
  imports: [IngestionMetricsModule],
  controllers: [CaptureController],
  providers: [CaptureService, IngestionProducer],
})
export class IngestionModule {}
