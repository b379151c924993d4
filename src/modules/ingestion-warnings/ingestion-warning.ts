/** What ingestion dropped or corrected, recorded for `/ingestion_warnings/` (written by the workers, read here). */
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
