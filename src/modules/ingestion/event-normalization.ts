import { v5 as uuidv5, v7 as uuidv7, validate as isUuid } from 'uuid';
import { cleanJson, setOwn } from '../../common/json/clean-text';
import { resolveEventTime } from './timestamps';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import { elementsToChain } from './elements-chain';
import { applyPersonPropertyRules } from './person-properties';
import { cutDistinctIdLength, MAX_DISTINCT_ID_LENGTH, normalizeDistinctId } from '../persons/distinct-id';
import { isJsonObject, JsonObject, scalarText } from '../../common/json/json-object';

/** Events bigger than this are dropped with a warning; the rest of the request is kept. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** Namespace for the stable uuid given to an event whose own uuid is malformed, so its retries still dedupe. */
const REPLACED_UUID_NAMESPACE = '4d1e5a86-4d55-4a59-9f3f-3a2a3f4b8a10';

export interface NormalizeContext {
  nowMs: number;
  sentAtMs: number | null;
  ip: string | null;
  /** Deep-clean strings (NUL, lone surrogates); skipped when the payload provably has none. */
  clean?: boolean;
}

/** A dropped event and why, or a kept event with notes about what was corrected in it. */
export type NormalizeResult = { dropped: IngestionWarning } | { event: NormalizedEvent; warnings: IngestionWarning[] };

function distinctIdOf(item: JsonObject, properties: JsonObject): unknown {
  return item.distinct_id ?? item.$distinct_id ?? properties.distinct_id ?? properties.$distinct_id;
}

function uuidOf(item: JsonObject, distinctId: string, event: string): { uuid: string; replaced: boolean } {
  const raw = item.uuid;
  if (raw === undefined || raw === null || raw === '') return { uuid: uuidv7(), replaced: false };
  if (typeof raw === 'string' && isUuid(raw)) return { uuid: raw.toLowerCase(), replaced: false };
  return { uuid: uuidv5(`${String(raw)}\u0000${distinctId}\u0000${event}`, REPLACED_UUID_NAMESPACE), replaced: true };
}

/** Top-level `$set` / `$set_once` / `$unset` merge into properties; the top-level values win. */
function mergePersonUpdates(item: JsonObject, properties: JsonObject): void {
  for (const key of ['$set', '$set_once'] as const) {
    if (!isJsonObject(item[key])) continue;
    setOwn(properties, key, { ...(isJsonObject(properties[key]) ? properties[key] : {}), ...item[key] });
  }
  if (item.$unset !== undefined) {
    const fromProperties = Array.isArray(properties.$unset) ? properties.$unset : [];
    const fromItem = Array.isArray(item.$unset) ? item.$unset : isJsonObject(item.$unset) ? Object.keys(item.$unset) : [];
    setOwn(properties, '$unset', [...fromProperties, ...fromItem]);
  }
}

function elementsChainOf(properties: JsonObject): string {
  const chain = properties.$elements_chain;
  if (typeof chain === 'string') {
    delete properties.$elements_chain;
    return chain;
  }
  if (Array.isArray(properties.$elements)) {
    const built = elementsToChain(properties.$elements);
    delete properties.$elements;
    return built;
  }
  return '';
}

/**
 * Events that exist to change persons or groups: with `$process_person_profile: false` they contradict
 * themselves, and PostHog drops them with a warning.
 */
const PERSON_PROFILE_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);

/** PostHog drops a `$groupidentify` whose group key is longer than this. */
const MAX_GROUP_KEY_LENGTH = 400;

/**
 * A `$groupidentify` PostHog drops: a group key over 400 characters, or group properties (`$group_set`)
 * that are not an object (none, or null, is an empty set).
 */
function groupIdentifyDrop(properties: JsonObject, distinctId: string): IngestionWarning | null {
  const details = { event: '$groupidentify', distinct_id: distinctId, group_type: properties.$group_type ?? null };
  if ((scalarText(properties.$group_key)?.length ?? 0) > MAX_GROUP_KEY_LENGTH) return { type: 'group_key_too_long', details };
  const set = properties.$group_set;
  if (set !== undefined && set !== null && !isJsonObject(set)) return { type: 'invalid_group_identify', details: { ...details, reason: '$group_set is not an object' } };
  return null;
}

/**
 * One captured event → a stored event or a dropped one with its warning (an event without a
 * name, or without or with an empty distinct_id, is dropped while the request still succeeds).
 */
export function normalizeEvent(raw: unknown, context: NormalizeContext): NormalizeResult {
  if (!isJsonObject(raw)) return { dropped: { type: 'invalid_event', details: { reason: 'event is not an object' } } };
  const item = context.clean === false ? raw : (cleanJson(raw) as JsonObject);
  const properties: JsonObject = isJsonObject(item.properties) ? { ...item.properties } : {};
  if (typeof item.event !== 'string' || item.event === '') {
    return { dropped: { type: 'missing_event_name', details: { distinct_id: normalizeDistinctId(distinctIdOf(item, properties)) } } };
  }
  const distinctId = normalizeDistinctId(distinctIdOf(item, properties));
  if (distinctId === null) return { dropped: { type: 'missing_distinct_id', details: { event: item.event } } };
  if (distinctId === '') return { dropped: { type: 'empty_distinct_id', details: { event: item.event } } };

  if (properties.$process_person_profile === false && PERSON_PROFILE_EVENTS.has(item.event)) {
    return { dropped: { type: 'invalid_event_when_process_person_profile_is_false', details: { event: item.event, distinct_id: distinctId } } };
  }
  if (item.event === '$groupidentify') {
    const groupDrop = groupIdentifyDrop(properties, distinctId);
    if (groupDrop) return { dropped: groupDrop };
  }

  const warnings: IngestionWarning[] = [];
  const cutFrom = cutDistinctIdLength(distinctIdOf(item, properties));
  if (cutFrom !== null) {
    warnings.push({ type: 'distinct_id_truncated', details: { event: item.event, distinct_id: distinctId, length: cutFrom, max_length: MAX_DISTINCT_ID_LENGTH } });
  }
  const { uuid, replaced } = uuidOf(item, distinctId, item.event);
  if (replaced) warnings.push({ type: 'invalid_uuid_replaced', details: { event: item.event, given: String(item.uuid), uuid } });
  mergePersonUpdates(item, properties);
  applyPersonPropertyRules(item.event, properties);
  // An empty or null `$ip` is filled too, as PostHog does (`!properties.$ip`).
  if (context.ip && !properties.$ip) properties.$ip = context.ip;
  if (context.sentAtMs !== null && properties.$sent_at === undefined) properties.$sent_at = new Date(context.sentAtMs).toISOString();
  const time = resolveEventTime({
    timestamp: item.timestamp,
    offset: item.offset,
    sentAtMs: context.sentAtMs,
    ignoreSentAt: properties.$ignore_sent_at === true,
    nowMs: context.nowMs,
  });
  for (const type of time.warnings) warnings.push({ type, details: { event: item.event, timestamp: item.timestamp ?? null } });
  const event: NormalizedEvent = {
    uuid,
    event: item.event,
    distinct_id: distinctId,
    properties,
    timestamp: new Date(time.ms).toISOString(),
    elements_chain: elementsChainOf(properties),
  };
  return { event, warnings };
}
