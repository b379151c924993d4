import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { DEFAULT_JOB_OPTIONS, ingestionQueueNames } from './queue-names';
import { QUEUE_CONNECTION, type QueueConnection } from './queue-connection';
import type { Queue } from 'bullmq';
import { DeadLettersService } from './dead-letters.service';
import { PartitionQueues } from './partition-queues';
import { QueueErrorListeners } from './queue-error-listeners';
import { QueueHealthService } from './queue-health.service';

/** Registers BullMQ with the chosen backend; producers use a fail-fast connection. */
@Global()
@Module({})
export class QueuesModule {
  static forRoot(connection: QueueConnection, partitions: number): DynamicModule {
    return {
      module: QueuesModule,
      imports: [
        BullModule.forRoot({ connection: connection.workerConnection as never, prefix: connection.prefix }),
        ...ingestionQueueNames(partitions).map((name) =>
          BullModule.registerQueue({
            name,
            connection: connection.producerConnection as never,
            prefix: connection.prefix,
            defaultJobOptions: DEFAULT_JOB_OPTIONS,
          }),
        ),
      ],
      providers: [
        { provide: QUEUE_CONNECTION, useValue: connection },
        {
          provide: PartitionQueues,
          useFactory: (...queues: Queue[]) => new PartitionQueues(queues, connection.kind === 'redis'),
          inject: ingestionQueueNames(partitions).map((name) => getQueueToken(name)),
        },
        QueueHealthService,
        DeadLettersService,
        QueueErrorListeners,
      ],
      exports: [BullModule, QUEUE_CONNECTION, PartitionQueues, QueueHealthService, DeadLettersService],
    };
  }
}
