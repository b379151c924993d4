import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { PartitionQueues } from '../../queues/partition-queues';

/** One active job per partition across every worker process: what keeps a distinct_id's events in order. */
@Injectable()
export class PartitionConcurrency implements OnApplicationBootstrap {
  constructor(private readonly queues: PartitionQueues) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const queue of this.queues.all) await queue.setGlobalConcurrency(1);
  }
}
