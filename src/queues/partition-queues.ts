import type { Queue } from 'bullmq';

/** The ingestion partition queues, in partition order: the one place that knows how to reach them. */
export class PartitionQueues {
  /** `acceptsSerializedData`: whether `add` takes SerializedJobData (the Redis backend, see serialized-job-data.ts). */
  constructor(
    readonly all: readonly Queue[],
    readonly acceptsSerializedData = false,
  ) {}

  get(partition: number): Queue {
    return this.all[partition];
  }
}
