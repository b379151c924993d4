import { ApiError } from '../../../common/errors/api-error';
import { bearerToken, projectTokenShapeProblem } from '../../../common/auth/key-sources';
import { mediaType } from '../../../common/http/media-type';
import { isJsonObject, JsonObject } from '../../../common/json/json-object';

/**
 * PostHog's capture v1 (`POST /i/v1/analytics/events`, posthog-python's `capture_mode="v1"`): the project key as a
 * Bearer token, the request described by `PostHog-*` headers, and `{created_at, batch: [{event, uuid, distinct_id,
 * timestamp, options, properties, session_id?, window_id?}]}`. Whole-request faults are errors whose `code` is v1's
 * error tag; faults of one event are per-event drops in a 200, as PostHog's capture answers them.
 */

/** What the headers say about the request (the key itself is the auth guard's: `ProjectKeyAuth({ bearer: true })`). */
export interface CaptureV1Headers {
  requestId: string;
  /** `PostHog-Sdk-Info` split at its last `/` (posthog-python/7.42.0), which becomes `$lib` / `$lib_version`. */
  sdk: { lib: string; version: string } | null;
  /** `PostHog-Request-Timestamp`: the client's clock when it sent, for skew correction. */
  clientTime: string;
}

/** The batch turned into v0 events for the capture pipeline, with the events refused before it. */
export interface CaptureV1Batch {
  /** Every event's uuid, in batch order. */
  uuids: string[];
  /** v0-shaped events to capture, each with the position of its uuid in `uuids`. */
  events: Array<{ position: number; event: JsonObject }>;
  /** uuid → why it was dropped before capture (v1's detail tags). */
  drops: Map<string, string>;
}

const REQUIRED_HEADERS = ['posthog-sdk-info', 'posthog-attempt', 'posthog-request-id', 'posthog-request-timestamp', 'content-type', 'user-agent'];
const ENCODINGS = new Set(['gzip', 'deflate', 'br']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339 = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;
/** Bytes of an event name or distinct id past which v1 drops the event. */
const MAX_NAME_BYTES = 200;
/** Typed options → the properties the v0 pipeline reads them from. */
const OPTION_PROPERTIES: Record<string, string> = {
  cookieless_mode: '$cookieless_mode',
  disable_skew_correction: '$ignore_sent_at',
  product_tour_id: '$product_tour_id',
  process_person_profile: '$process_person_profile',
};

export const v1Error = (status: number, tag: string, detail: string) => new ApiError(status, 'validation_error', tag, detail);

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function parseCaptureV1Headers(headers: Headers): CaptureV1Headers {
  checkAuthorization(header(headers, 'authorization'));
  const missing = REQUIRED_HEADERS.filter((name) => !header(headers, name)?.trim());
  if (missing.length > 0) throw v1Error(400, 'missing_required_headers', `Missing required headers: ${missing.join(', ')}. PostHog SDKs in capture v1 mode send them all.`);
  const type = mediaType(header(headers, 'content-type'));
  if (type !== 'application/json') throw v1Error(415, 'unsupported_content_type', `Content-Type must be application/json, got "${type}".`);
  const requestId = header(headers, 'posthog-request-id')!.trim();
  if (!UUID.test(requestId)) throw v1Error(400, 'invalid_header_value', 'PostHog-Request-Id must be a UUID.');
  if (!/^[1-9]\d{0,8}$/.test(header(headers, 'posthog-attempt')!.trim())) throw v1Error(400, 'invalid_header_value', 'PostHog-Attempt must be a whole number from 1.');
  const clientTime = header(headers, 'posthog-request-timestamp')!.trim();
  if (!RFC3339.test(clientTime) || Number.isNaN(Date.parse(clientTime))) {
    throw v1Error(400, 'invalid_header_value', 'PostHog-Request-Timestamp must be an RFC 3339 timestamp.');
  }
  checkEncoding(header(headers, 'content-encoding'));
  return { requestId, sdk: sdkInfo(header(headers, 'posthog-sdk-info')!), clientTime };
}

/** v1's answers for a key that is missing, not Bearer, personal or malformed; whether it names a project is the guard's. */
function checkAuthorization(authorization: string | undefined): void {
  if (!authorization?.trim()) {
    throw v1Error(401, 'missing_authorization', 'Send the project API key (phc_…) as "Authorization: Bearer phc_…".');
  }
  const token = bearerToken(authorization);
  if (token === null) throw v1Error(400, 'invalid_header_value', 'Authorization must be "Bearer <project API key>".');
  if (token.startsWith('phx_')) {
    throw v1Error(401, 'invalid_api_token', 'This is a personal API key (phx_): capture takes the project API key (phc_), the one SDKs are given.');
  }
  if (projectTokenShapeProblem(token) !== null) throw v1Error(401, 'invalid_api_token', 'The project API key is malformed: at most 64 printable ASCII characters.');
}

function sdkInfo(raw: string): CaptureV1Headers['sdk'] {
  const at = raw.lastIndexOf('/');
  if (at <= 0 || at === raw.length - 1 || raw.length > 200) return null; // malformed: PostHog only counts it
  return { lib: raw.slice(0, at).trim(), version: raw.slice(at + 1).trim() };
}

/** The body is inflated by the shared payload decoding; this refuses, first, what it cannot inflate. */
function checkEncoding(raw: string | undefined): void {
  const name = raw?.trim().toLowerCase();
  if (name && name !== 'identity' && !ENCODINGS.has(name)) {
    throw v1Error(415, 'unsupported_encoding', `Content-Encoding "${name}" is not supported here: send gzip, deflate or br, or none.`);
  }
}

/** The parsed JSON body → the events to capture and those dropped already (a malformed batch is a 400). */
export function parseCaptureV1Batch(body: unknown, headers: CaptureV1Headers): CaptureV1Batch {
  if (!isJsonObject(body)) throw v1Error(400, 'request_parsing_error', 'The body must be a JSON object: {"created_at": …, "batch": [...]}.');
  if (typeof body.created_at !== 'string') throw v1Error(400, 'request_parsing_error', '"created_at" is required: the time the batch was made (RFC 3339).');
  if (!RFC3339.test(body.created_at)) throw v1Error(400, 'invalid_batch', '"created_at" must be an RFC 3339 timestamp.');
  if (!Array.isArray(body.batch)) throw v1Error(400, 'request_parsing_error', '"batch" is required: a list of events.');
  if (body.batch.length === 0) throw v1Error(400, 'empty_batch', '"batch" is empty: send at least one event.');
  const batch: CaptureV1Batch = { uuids: [], events: [], drops: new Map() };
  for (const [index, item] of body.batch.entries()) {
    const uuid = checkedUuid(item, index, batch.uuids);
    batch.uuids.push(uuid);
    const problem = eventProblem(item as JsonObject);
    if (problem) batch.drops.set(uuid, problem);
    else batch.events.push({ position: index, event: toV0Event(item as JsonObject, headers) });
  }
  return batch;
}

/** The fields every event must have, with their JSON types: without them the whole batch is refused, as PostHog does. */
function checkedUuid(item: unknown, index: number, seen: string[]): string {
  if (!isJsonObject(item)) throw v1Error(400, 'request_parsing_error', `batch[${index}] must be an event object.`);
  for (const field of ['event', 'uuid', 'distinct_id', 'timestamp']) {
    if (typeof item[field] !== 'string') throw v1Error(400, 'request_parsing_error', `batch[${index}].${field} is required and must be a string.`);
  }
  const uuid = (item.uuid as string).trim();
  if (!UUID.test(uuid)) throw v1Error(400, 'invalid_event_uuid', `batch[${index}].uuid must be a UUID.`);
  if (seen.includes(uuid)) throw v1Error(400, 'duplicate_event_uuid', `batch[${index}].uuid ${uuid} appears twice in the batch.`);
  return uuid;
}

/** Why v1 drops this one event, or null. */
function eventProblem(item: JsonObject): string | null {
  const name = item.event as string;
  const distinctId = (item.distinct_id as string).trim();
  if (name === '') return 'missing_event_name';
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return 'event_name_too_long';
  if (distinctId === '') return 'missing_distinct_id';
  if (Buffer.byteLength(distinctId) > MAX_NAME_BYTES) return 'distinct_id_too_large';
  if (!RFC3339.test(item.timestamp as string) || Number.isNaN(Date.parse(item.timestamp as string))) return 'invalid_event_timestamp';
  if (item.properties !== undefined && !isJsonObject(item.properties)) return 'malformed_event_properties';
  if (item.options !== undefined && !isJsonObject(item.options)) return 'invalid_options';
  return null;
}

/** The v0 event the rest of capture understands: options, session and SDK back into properties. */
function toV0Event(item: JsonObject, headers: CaptureV1Headers): JsonObject {
  const properties: JsonObject = { ...((item.properties as JsonObject | undefined) ?? {}) };
  if (headers.sdk) {
    properties.$lib = headers.sdk.lib;
    properties.$lib_version = headers.sdk.version;
  }
  if (typeof item.session_id === 'string') properties.$session_id = item.session_id;
  if (typeof item.window_id === 'string') properties.$window_id = item.window_id;
  for (const [option, value] of Object.entries((item.options as JsonObject | undefined) ?? {})) {
    if (OPTION_PROPERTIES[option] !== undefined && value !== null) properties[OPTION_PROPERTIES[option]] = value;
  }
  return { event: item.event, uuid: (item.uuid as string).trim(), distinct_id: (item.distinct_id as string).trim(), timestamp: item.timestamp, properties };
}
