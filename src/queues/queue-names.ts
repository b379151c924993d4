import type { DefaultJobOptions } from 'bullmq';

/** Every queue the service uses. One job carries a batch of events, never a single event (CONTRACT §1). */
export const INGESTION_QUEUE = 'ingestion';

export const QUEUE_NAMES = [INGESTION_QUEUE] as const;

/** Retries with backoff; completed jobs are trimmed, failed ones are kept as the dead-letter record. */
export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: false,
};
