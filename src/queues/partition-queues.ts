import type { Queue } from 'bullmq';

/** The ingestion partition queues, in partition order: the one place that knows how to reach them. */
export class PartitionQueues {
  /** `onRedis`: the queues use the Redis backend, where large jobs' data is kept beside them (JobPayloads). */
  constructor(
    readonly all: readonly Queue[],
    readonly onRedis = false,
  ) {}

  get(partition: number): Queue {
    return this.all[partition];
  }
}
