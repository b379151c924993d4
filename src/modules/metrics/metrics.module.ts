import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { QueueMetrics } from './queue-metrics';

@Global()
@Module({
  controllers: [MetricsController],
  // The queues' depth is read from QueuesModule's PartitionQueues, which every process has beside this module.
  providers: [MetricsService, QueueMetrics],
  exports: [MetricsService],
})
export class MetricsModule {}
