import type { ProjectKeyOptions } from '../../common/auth/auth.decorator';
import { ApiError } from '../../common/errors/api-error';
import { emptyEventList, invalidPayload } from './payload/payload-decoding';
import { isJsonObject } from '../../common/json/json-object';

/**
 * Who may send events. A personal key in place of the project key (PostHog's current capture refuses those; its older
 * one took them for scripts) must be allowed to write what capture writes: events (`query`, PostHog's scope for
 * events) and the persons they change.
 */
export const CAPTURE_AUTH: ProjectKeyOptions = { personalKeyScopes: ['query:write', 'person:write'], failOpen: true };

export interface CaptureEnvelope {
  items: unknown[];
  /** `sent_at` of a `{batch}` body. */
  sentAt: unknown;
}

/**
 * The four body shapes of PostHog's v0 capture: an array of
 * events, `{api_key, batch, sent_at}`, a single event, and on `/engage` an event-less object that
 * becomes `$identify`.
 */
export function extractCaptureEvents(payload: unknown, path: string): CaptureEnvelope {
  let envelope: CaptureEnvelope;
  if (Array.isArray(payload)) {
    envelope = { items: payload, sentAt: undefined };
  } else if (isJsonObject(payload) && payload.batch !== undefined) {
    // A `batch` that is not a list would otherwise be read as one event without a name and dropped.
    if (!Array.isArray(payload.batch)) throw invalidPayload(`"batch" must be a list of events, got ${jsonKind(payload.batch)}`);
    envelope = { items: payload.batch, sentAt: payload.sent_at };
  } else if (isJsonObject(payload)) {
    const engage = path.replace(/\/+$/, '').endsWith('/engage') && payload.event === undefined;
    envelope = { items: [engage ? { ...payload, event: '$identify' } : payload], sentAt: payload.sent_at };
  } else {
    throw invalidPayload('expected an event, an array of events or a batch');
  }
  if (envelope.items.length === 0) throw emptyEventList();
  return envelope;
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  return isJsonObject(value) ? 'an object' : `a ${typeof value}`;
}

function eventToken(event: unknown): string | null {
  if (!isJsonObject(event)) return null;
  for (const candidate of [event.api_key, event.token, event.$token, isJsonObject(event.properties) ? event.properties.token : undefined]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  }
  return null;
}

/**
 * The events of one request must agree on one project key (PostHog's `MultipleTokensError`, 401): those of an array,
 * and those of a `{batch}` body that names no key at its top. A `{batch}` with its own key is sent for that key's
 * project, whatever its events carry.
 */
export function assertSingleProjectKey(payload: unknown): void {
  const events = Array.isArray(payload) ? payload : isJsonObject(payload) && Array.isArray(payload.batch) && eventToken(payload) === null ? payload.batch : [];
  const tokens = new Set(events.map(eventToken).filter((token): token is string => token !== null));
  if (tokens.size > 1) {
    throw new ApiError(401, 'authentication_error', 'invalid_api_key', 'Events in one request must use the same project API key.');
  }
}
