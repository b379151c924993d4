import type { ApiError } from '../../../common/errors/api-error';

/** v1 names some failures its own way; the rest keep the code they were raised with. */
const TAGS: Record<string, string> = {
  invalid_api_key: 'invalid_api_token',
  no_data: 'empty_body',
  invalid_payload: 'request_parsing_error',
  server_error: 'service_unavailable',
  payload_too_large: 'payload_too_large',
};

/** Capture v1's error body, `{error, error_description, error_uri}`, which posthog-python reads in v1 mode. */
export function captureV1ErrorBody(error: ApiError): { error: string; error_description: string; error_uri: string } {
  const tag = error.status >= 500 && error.status !== 503 ? 'internal_error' : (TAGS[error.code] ?? error.code);
  const decoding = error.code === 'invalid_payload' && /invalid (GZIP|deflate|br) data/.test(error.detail);
  return { error: decoding ? 'request_decoding_error' : tag, error_description: error.detail, error_uri: 'https://posthog.com/docs/api' };
}

export type EventResult = { result: 'ok' } | { result: 'drop'; details: string };

/** v0 drop reasons → v1's detail tags. */
const DROP_DETAILS: Record<string, string> = {
  empty_distinct_id: 'missing_distinct_id',
  invalid_event: 'malformed_event',
  invalid_event_when_process_person_profile_is_false: 'invalid_options',
};

/** `{"results": {uuid: {"result": "ok" | "drop", "details"?}}}`, every event of the batch by its uuid. */
export function captureV1Results(uuids: string[], drops: Map<string, string>): { results: Record<string, EventResult> } {
  const results: Record<string, EventResult> = {};
  for (const uuid of uuids) {
    const reason = drops.get(uuid);
    results[uuid] = reason === undefined ? { result: 'ok' } : { result: 'drop', details: DROP_DETAILS[reason] ?? reason };
  }
  return { results };
}
