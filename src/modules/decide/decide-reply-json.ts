import type { FlagEvaluation } from './engine/evaluate';
import { decideConfig, FlagsOutcome, formatReply, payloadText, reasonJson, ReplyFormat } from './decide-responses';
import type { SnapshotFlag } from './flag-snapshot';

/**
 * The reply as JSON text, written from pieces made once per snapshot flag (key, id, version, payloads)
 * and once per token (the config block): only value, variant and reason vary per request. Always the
 * exact text `JSON.stringify(formatReply(...))` gives, which the unit tests check on generated outcomes;
 * it saves building some 250 objects and serialising 12 KB per `/flags/?v=2` on 50 flags.
 */
export function replyJson(format: ReplyFormat, outcome: FlagsOutcome, token: string): string {
  const config = format.withConfig ? configFragment(token) : '';
  // Object.fromEntries puts integer-like keys first; such flag keys take the generic path.
  if (config === null || outcome.results.some((r) => fragmentsOf(r.flag).indexKey)) return JSON.stringify(formatReply(format, outcome, token));
  return `{${config}${flagsBodyJson(format, outcome)},"requestId":${JSON.stringify(outcome.requestId)},"evaluatedAt":${JSON.stringify(outcome.evaluatedAt)}}`;
}

interface FlagFragments {
  /** The key as JSON text. */
  key: string;
  /** Whether the key is an array index, which objects order before every other key. */
  indexKey: boolean;
  /** `{"id":…,"version":…,"description":null` of the detailed reply's metadata. */
  metadata: string;
  /** Payload (as stored) → its payload text as JSON; payloads are few per flag and fixed per snapshot. */
  payloads: Map<unknown, string>;
}

/** Snapshot flags live as long as their snapshot: so do their fragments. */
const fragments = new WeakMap<SnapshotFlag, FlagFragments>();

function fragmentsOf(flag: SnapshotFlag): FlagFragments {
  let found = fragments.get(flag);
  if (!found) {
    const metadata = JSON.stringify({ id: flag.id, version: flag.version, description: null }).slice(0, -1);
    found = { key: JSON.stringify(flag.key), indexKey: isArrayIndex(flag.key), metadata, payloads: new Map() };
    fragments.set(flag, found);
  }
  return found;
}

function isArrayIndex(key: string): boolean {
  return /^(0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/** The payload text of an evaluation as JSON text (`null` without one). */
function payloadJson(flag: SnapshotFlag, payload: unknown): string {
  const cache = fragmentsOf(flag).payloads;
  let json = cache.get(payload);
  if (json === undefined) {
    json = JSON.stringify(payloadText(payload));
    // Payloads of one snapshot flag are a handful of stored values; anything else is not kept.
    if (cache.size < 64) cache.set(payload, json);
  }
  return json;
}

const configFragments = new Map<string, string | null>();
const FLAG_BODY_KEYS = ['featureFlags', 'featureFlagPayloads', 'errorsWhileComputingFlags', 'flags', 'requestId', 'evaluatedAt'];

/** The config block's keys and values followed by a comma; null when a key would collide with the flags' (generic path). */
function configFragment(token: string): string | null {
  let fragment = configFragments.get(token);
  if (fragment === undefined) {
    const config = decideConfig(token);
    const json = JSON.stringify(config);
    fragment = FLAG_BODY_KEYS.some((key) => key in config) ? null : json.length > 2 ? `${json.slice(1, -1)},` : '';
    if (configFragments.size >= 1000) configFragments.clear();
    configFragments.set(token, fragment);
  }
  return fragment;
}

const valueJson = (value: FlagEvaluation['value']) => (typeof value === 'string' ? JSON.stringify(value) : value ? 'true' : 'false');

function flagsBodyJson(format: ReplyFormat, outcome: FlagsOutcome): string {
  const errors = `"errorsWhileComputingFlags":${outcome.errors}`;
  switch (format.shape) {
    case 'decide-v1':
      return `"featureFlags":[${enabledOf(outcome).map((r) => fragmentsOf(r.flag).key).join(',')}]`;
    case 'decide-v2':
      return `"featureFlags":{${enabledOf(outcome).map((r) => `${fragmentsOf(r.flag).key}:${valueJson(r.evaluation.value)}`).join(',')}}`;
    case 'legacy':
      return `"featureFlags":{${outcome.results.map((r) => `${fragmentsOf(r.flag).key}:${valueJson(r.evaluation.value)}`).join(',')}},"featureFlagPayloads":{${legacyPayloads(outcome)}},${errors}`;
    case 'detailed':
      return `"flags":{${outcome.results.map(detailJson).join(',')}},${errors}`;
  }
}

const enabledOf = (outcome: FlagsOutcome) => outcome.results.filter((r) => r.evaluation.value !== false);

function legacyPayloads(outcome: FlagsOutcome): string {
  const parts: string[] = [];
  for (const { flag, evaluation } of outcome.results) {
    if (evaluation.value === false || payloadText(evaluation.payload) === null) continue;
    parts.push(`${fragmentsOf(flag).key}:${payloadJson(flag, evaluation.payload)}`);
  }
  return parts.join(',');
}

/** Reason → condition index (+1; 0 for none) → `{"code":…,"condition_index":…,"description":…}`: a few dozen texts. */
const reasons = new Map<FlagEvaluation['reason'], string[]>();
const MAX_CACHED_INDEX = 1000;

function reasonText(evaluation: FlagEvaluation): string {
  const index = evaluation.conditionIndex;
  const slot = index === null ? 0 : Number.isInteger(index) && index >= 0 && index < MAX_CACHED_INDEX ? index + 1 : -1;
  if (slot < 0) return JSON.stringify(reasonJson(evaluation));
  let texts = reasons.get(evaluation.reason);
  if (!texts) reasons.set(evaluation.reason, (texts = []));
  return (texts[slot] ??= JSON.stringify(reasonJson(evaluation)));
}

function detailJson({ flag, evaluation }: { flag: SnapshotFlag; evaluation: FlagEvaluation }): string {
  const parts = fragmentsOf(flag);
  const enabled = evaluation.value !== false;
  const variant = typeof evaluation.value === 'string' ? JSON.stringify(evaluation.value) : 'null';
  const payload = enabled ? payloadJson(flag, evaluation.payload) : 'null';
  return `${parts.key}:{"key":${parts.key},"enabled":${enabled},"variant":${variant},"reason":${reasonText(evaluation)},"metadata":${parts.metadata},"payload":${payload},"has_experiment":false}}`;
}
