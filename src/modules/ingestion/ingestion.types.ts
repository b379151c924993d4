import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';

/** The unit of work on the queue: one project's events (one partition), plus warnings to record. */
export interface IngestionSegment {
  /** Null when the key could not be checked at capture time (database down): the worker checks it. */
  projectId: number | null;
  token: string;
  receivedAt: string;
  events: NormalizedEvent[];
  warnings: IngestionWarning[];
}

export interface IngestionJobData {
  segments: IngestionSegment[];
}
