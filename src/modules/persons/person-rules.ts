import { setOwn } from '../../common/json/clean-text';
import { isJsonObject, JsonObject } from '../../common/json/json-object';
import { scalarDistinctId } from './distinct-id';

/** Ids PostHog refuses to merge on (plugin-server's person-state.ts): SDK placeholders, not people. */
const ILLEGAL_CASE_INSENSITIVE = new Set([
  'anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false',
]);
const ILLEGAL_CASE_SENSITIVE = new Set(['[object Object]', 'NaN', 'None', 'none', 'null', '0']);

export function isIllegalDistinctId(id: string): boolean {
  const trimmed = id.trim();
  if (trimmed === '') return true;
  const unquoted = trimmed.replace(/^["']|["']$/g, '');
  return ILLEGAL_CASE_INSENSITIVE.has(unquoted.toLowerCase()) || ILLEGAL_CASE_SENSITIVE.has(unquoted);
}

/** The person changes an event asks for, read from its (already normalised) properties. */
export interface PersonUpdates {
  set: JsonObject;
  setOnce: JsonObject;
  unset: string[];
}

export function personUpdatesOf(properties: JsonObject): PersonUpdates {
  const unset = properties.$unset;
  return {
    set: isJsonObject(properties.$set) ? properties.$set : {},
    setOnce: isJsonObject(properties.$set_once) ? properties.$set_once : {},
    unset: Array.isArray(unset) ? unset.filter((key): key is string => typeof key === 'string') : isJsonObject(unset) ? Object.keys(unset) : [],
  };
}

export function hasUpdates(updates: PersonUpdates): boolean {
  return Object.keys(updates.set).length > 0 || Object.keys(updates.setOnce).length > 0 || updates.unset.length > 0;
}

/**
 * PostHog's order (person-update.ts): `$set_once` only where the key is missing, then `$set`
 * overwrites, then `$unset` removes. Returns a new object and whether anything changed.
 */
export function applyPersonUpdates(current: JsonObject, updates: PersonUpdates): { properties: JsonObject; changed: boolean } {
  const next: JsonObject = { ...current };
  let changed = false;
  for (const [key, value] of Object.entries(updates.setOnce)) {
    if (Object.hasOwn(next, key)) continue;
    setOwn(next, key, value);
    changed = true;
  }
  for (const [key, value] of Object.entries(updates.set)) {
    if (Object.hasOwn(next, key) && deepEqual(next[key], value)) continue;
    setOwn(next, key, value);
    changed = true;
  }
  for (const key of updates.unset) {
    if (!Object.hasOwn(next, key)) continue;
    delete next[key];
    changed = true;
  }
  return { properties: next, changed };
}

/** On a merge the person of the event's own distinct_id (the target) wins every shared key. */
export function mergeProperties(source: JsonObject, target: JsonObject): JsonObject {
  return { ...source, ...target };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Which identity operation an event asks for. */
export type IdentityOperation =
  | { kind: 'none' }
  | { kind: 'merge'; otherId: string; dangerous: boolean; identify: boolean };

/**
 * The other id of a merge is a distinct id like any other (a number as its text, as PostHog stringifies
 * it; cut to 200 characters as events' ids are).
 */
export function identityOperationOf(event: string, properties: JsonObject): IdentityOperation {
  const anonId = event === '$identify' ? scalarDistinctId(properties.$anon_distinct_id) : null;
  if (anonId !== null) return { kind: 'merge', otherId: anonId, dangerous: false, identify: true };
  const alias = event === '$create_alias' || event === '$merge_dangerously' ? scalarDistinctId(properties.alias) : null;
  if (alias !== null) return { kind: 'merge', otherId: alias, dangerous: event === '$merge_dangerously', identify: false };
  return { kind: 'none' };
}

/** Events that belong to a person but never change its properties (PostHog: exceptions, heatmaps). */
const NON_UPDATING_EVENTS = new Set(['$exception', '$$heatmap']);

export function updatesPersonProperties(event: string): boolean {
  return !NON_UPDATING_EVENTS.has(event);
}

/** `$process_person_profile: false` and `$groupidentify` events never create or change persons. */
export function isPersonless(event: string, properties: JsonObject): boolean {
  return properties.$process_person_profile === false || event === '$groupidentify';
}
