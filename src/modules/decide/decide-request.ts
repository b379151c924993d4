import { ApiError } from '../../common/errors/api-error';
import { cleanString } from '../../common/json/clean-text';
import { isJsonObject, scalarText } from '../../common/json/json-object';
import { scalarDistinctId } from '../persons/distinct-id';
import { MAX_COMPARED_CHARS } from '../../kernel/property-match';
import type { EvaluationRequest } from './flag-evaluation.service';

export interface DecideRequest extends EvaluationRequest {
  /** `disable_flags: true`: the config only, no flags evaluated. */
  disableFlags: boolean;
}

const malformed = (detail: string, attr: string) => new ApiError(400, 'validation_error', 'malformed_data', detail, attr);

export const missingDistinctId = () =>
  new ApiError(400, 'validation_error', 'missing_distinct_id', 'Decide requires a distinct_id.', 'distinct_id');

/** The first of the aliases the SDKs use that is present. */
function field(body: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (body[name] !== undefined && body[name] !== null) return body[name];
  return undefined;
}

function distinctIdOf(body: Record<string, unknown>): string {
  // Cleaned and cut to 200 characters as ingestion stores it (PostHog truncates too), so the person it names is found.
  const id = scalarDistinctId(field(body, 'distinct_id', '$distinct_id'));
  if (id === null) throw missingDistinctId();
  return id;
}

function objectField(body: Record<string, unknown>, attr: string, ...names: string[]): Record<string, unknown> {
  const raw = field(body, ...names);
  if (raw === undefined) return {};
  if (!isJsonObject(raw)) throw malformed(`${attr} must be a JSON object.`, attr);
  return raw;
}

/**
 * `{type: key}`: keys are strings (numbers are stringified, as group identify does). Any other key
 * (null, a boolean, a list, an object) names no group, as in PostHog's flags service: that group's
 * flags answer `no_group_type` and every other flag is still evaluated.
 * So does a key longer than any value evaluation compares (each group flag hashes its key).
 */
function groupsOf(body: Record<string, unknown>): Record<string, string> {
  // A group type may be named `__proto__`: a plain object would drop it.
  const groups: Record<string, string> = Object.create(null);
  for (const [type, key] of Object.entries(objectField(body, 'groups', 'groups', '$groups'))) {
    const text = scalarText(key);
    // Group keys are stored cleaned by ingestion (NUL and lone surrogates as U+FFFD).
    if (text !== null && text.length <= MAX_COMPARED_CHARS) groups[type] = cleanString(text);
  }
  return groups;
}

function groupPropertiesOf(body: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const byType = objectField(body, 'group_properties', 'group_properties', '$group_properties');
  for (const [type, properties] of Object.entries(byType)) {
    if (!isJsonObject(properties)) throw malformed(`group_properties.${type} must be a JSON object.`, 'group_properties');
  }
  return byType as Record<string, Record<string, unknown>>;
}

function flagKeysOf(body: Record<string, unknown>): string[] | null {
  const raw = field(body, 'flag_keys_to_evaluate', 'flag_keys');
  if (raw === undefined) return null;
  if (!Array.isArray(raw) || !raw.every((key) => typeof key === 'string')) {
    throw malformed('flag_keys_to_evaluate must be a list of flag keys.', 'flag_keys_to_evaluate');
  }
  return raw;
}

function anonDistinctIdOf(body: Record<string, unknown>): string | null {
  const id = scalarDistinctId(field(body, '$anon_distinct_id', 'anon_distinct_id'));
  return id === '' ? null : id;
}

/** The decoded body of `/decide/` or `/flags/`, with every alias the SDKs send. */
export function parseDecideRequest(body: unknown): DecideRequest {
  if (!isJsonObject(body)) throw new ApiError(400, 'validation_error', 'malformed_data', 'Malformed request data: expected a JSON object.');
  return {
    distinctId: distinctIdOf(body),
    anonDistinctId: anonDistinctIdOf(body),
    groups: groupsOf(body),
    personProperties: objectField(body, 'person_properties', 'person_properties', '$properties'),
    groupProperties: groupPropertiesOf(body),
    flagKeys: flagKeysOf(body),
    disableFlags: body.disable_flags === true,
  };
}
