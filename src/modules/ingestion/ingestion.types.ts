/** An event ready to be persisted: everything the worker needs, already validated and normalised. */
export interface NormalizedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  /** ISO 8601, skew-corrected. */
  timestamp: string;
  elements_chain: string;
}

export type IngestionWarningType =
  | 'invalid_event'
  | 'missing_event_name'
  | 'missing_distinct_id'
  | 'empty_distinct_id'
  | 'event_too_big'
  | 'invalid_uuid_replaced'
  | 'distinct_id_truncated'
  | 'event_timestamp_in_future'
  | 'ignored_invalid_timestamp'
  | 'invalid_project_api_key'
  | 'cannot_merge_with_illegal_distinct_id'
  | 'cannot_merge_already_identified'
  | 'invalid_group_identify'
  | 'invalid_event_when_process_person_profile_is_false'
  | 'group_key_too_long';

export interface IngestionWarning {
  type: IngestionWarningType;
  details: Record<string, unknown>;
}

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
