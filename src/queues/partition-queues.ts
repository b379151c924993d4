import type { Queue } from 'bullmq';

/** The ingestion partition queues, in partition order: the one place that knows how to reach them. */
export class PartitionQueues {
  constructor(readonly all: readonly Queue[]) {}

  get(partition: number): Queue {
    return this.all[partition];
  }
}
