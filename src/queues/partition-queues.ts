import type { Queue } from 'bullmq';
import { acceptSerializedJobData } from './serialized-job-data';

/** The ingestion partition queues, in partition order: the one place that knows how to reach them. */
export class PartitionQueues {
  /** With `acceptsSerializedData` (the Redis backend only), the queues' `add` also takes SerializedJobData. */
  constructor(
    readonly all: readonly Queue[],
    readonly acceptsSerializedData = false,
  ) {
    if (acceptsSerializedData) all.forEach(acceptSerializedJobData);
  }

  get(partition: number): Queue {
    return this.all[partition];
  }
}
