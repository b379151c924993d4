import type { DefaultJobOptions } from 'bullmq';

/**
 * Ingestion is spread over partition queues by hash(project key, distinct_id). Each partition runs one
 * job at a time across every worker, so one distinct_id's events are applied in capture order.
 */
export function ingestionQueueName(partition: number): string {
  return `ingestion-${partition}`;
}

export function ingestionQueueNames(partitions: number): string[] {
  return Array.from({ length: partitions }, (_, partition) => ingestionQueueName(partition));
}

export const INGESTION_JOB = 'events';

/**
 * Transient failures are retried inside the processor (so a partition never reorders); a job that
 * still fails goes to the failed set, which is the dead-letter queue. A completed job is removed at once: its events
 * are in PostgreSQL, and kept jobs held their data in Redis (the last 1,000 per partition were 1 GB of Redis memory
 * with 1 MB events, and trimming them cost Redis the same work later).
 */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: false,
};
