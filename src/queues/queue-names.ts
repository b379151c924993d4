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
 * still fails goes to the failed set, which is the dead-letter queue. Completed jobs are trimmed.
 */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: false,
};
