import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { UUID_PATTERN } from '../../common/validation/patterns';
import { bodyNotAnObject } from '../../common/validation/validation-errors';
import { normalizeDistinctId } from './distinct-id';

/** PostHog's limit: at most this many ids or distinct ids per call. */
export const MAX_BULK_DELETE_IDS = 1000;

/** Which persons a bulk delete names: by uuid, or by any of their distinct ids. */
export type PersonSelector = { uuids: string[] } | { distinctIds: string[] };

export interface BulkDeleteRequest {
  selector: PersonSelector;
  deleteEvents: boolean;
  deleteRecordings: boolean;
  /** Delete the person's data (events) but keep the person. */
  keepPerson: boolean;
}

export interface BulkDeleteSummary {
  persons_found: number;
  persons_deleted: number;
  events_queued_for_deletion: boolean;
  recordings_queued_for_deletion: boolean;
  deletion_errors: Array<{ person_uuid: string }>;
}

/** An empty list counts as absent, as PostHog tests the lists for truthiness. */
function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Every entry a uuid (lowercased, duplicates dropped); the first bad one is named as DRF names list items. */
function uuidsOf(values: unknown[]): string[] {
  values.forEach((value, index) => {
    if (typeof value !== 'string' || !UUID_PATTERN.test(value)) throw ApiError.validation('Must be a valid UUID.', `ids__${index}`);
  });
  return [...new Set((values as string[]).map((value) => value.toLowerCase()))];
}

/** Every entry a string, cleaned and cut as ingestion stores distinct ids, so the persons they name are found. */
function distinctIdsOf(values: unknown[]): string[] {
  values.forEach((value, index) => {
    if (typeof value !== 'string') throw ApiError.validation('Not a valid string.', `distinct_ids__${index}`);
  });
  return [...new Set((values as string[]).map((value) => normalizeDistinctId(value)!))];
}

/**
 * The body of `POST persons/bulk_delete/` after the DTO has checked field types. PostHog's own checks
 * come first, in its order and words (attr null); then each listed id is checked, which PostHog skips.
 */
export function parseBulkDeleteRequest(body: unknown): BulkDeleteRequest {
  if (!isJsonObject(body)) throw bodyNotAnObject(body);
  const ids = listOf(body.ids);
  const distinctIds = listOf(body.distinct_ids);
  if (ids.length > 0 && distinctIds.length > 0) throw ApiError.validation('You must provide either distinct_ids or ids, not both');
  if (distinctIds.length > MAX_BULK_DELETE_IDS) throw ApiError.validation(`You can only pass ${MAX_BULK_DELETE_IDS} distinct_ids in one call`);
  if (ids.length > MAX_BULK_DELETE_IDS) throw ApiError.validation(`You can only pass ${MAX_BULK_DELETE_IDS} ids in one call`);
  if (ids.length === 0 && distinctIds.length === 0) throw ApiError.validation('You need to specify either distinct_ids or ids');
  return {
    selector: ids.length > 0 ? { uuids: uuidsOf(ids) } : { distinctIds: distinctIdsOf(distinctIds) },
    deleteEvents: body.delete_events === true,
    deleteRecordings: body.delete_recordings === true,
    keepPerson: body.keep_person === true,
  };
}

/**
 * PostHog's reply. Events are deleted before the reply is sent, and no recordings are stored, so both
 * flags mean "requested, and nothing of it is left", as PostHog sets them whenever persons were found.
 * Everything runs in one transaction, so a failure fails the whole request instead of listing errors.
 */
export function bulkDeleteSummary(request: BulkDeleteRequest, found: number, deleted: number): BulkDeleteSummary {
  return {
    persons_found: found,
    persons_deleted: deleted,
    events_queued_for_deletion: request.deleteEvents && found > 0,
    recordings_queued_for_deletion: request.deleteRecordings && found > 0,
    deletion_errors: [],
  };
}
