import type { FlagEvaluation, FlagValue, MatchReason } from '../../kernel/evaluate';
import { decideConfig, FlagsOutcome, formatReply, payloadText, reasonJson, ReplyFormat } from './decide-responses';
import type { SnapshotFlag } from './flag-snapshot';

/**
 * The reply as JSON text, from texts kept per snapshot flag and per evaluation (a flag's value, reason
 * and condition index take a handful of combinations) and per token (the config block): a request only
 * picks them and joins them once. Always the exact text `JSON.stringify(formatReply(...))` gives, which
 * the unit tests check on generated outcomes; it saves building some 250 objects and writing 12 KB of
 * JSON per `/flags/?v=2` on 50 flags.
 */
export function replyJson(format: ReplyFormat, outcome: FlagsOutcome, token: string): string {
  const config = format.withConfig ? configFragment(token) : '';
  // Object.fromEntries puts integer-like keys first; such flag keys take the generic path.
  if (config === null || outcome.results.some((r) => textsOf(r.flag).indexKey)) return JSON.stringify(formatReply(format, outcome, token));
  // One array joined once: the reply is a flat string, which the socket write takes without another copy.
  const parts: string[] = ['{', config];
  writeFlagsBody(parts, format, outcome);
  parts.push(',"requestId":', JSON.stringify(outcome.requestId), ',"evaluatedAt":', JSON.stringify(outcome.evaluatedAt), '}');
  return parts.join('');
}

/**
 * A flag's texts in replies, made on the first reply that names the snapshot flag and kept beside it (a snapshot flag
 * is replaced, never changed, when its flag changes, so its texts never go stale and leave with it).
 */
export interface FlagReplyTexts {
  /** The key as JSON text. */
  key: string;
  /** Whether the key is an array index, which objects order before every other key. */
  indexKey: boolean;
  /** `{"id":…,"version":…,"description":null` of the detailed reply's metadata. */
  metadata: string;
  /** The texts of each value the flag has answered with (its variants, true, false). */
  byValue: Map<FlagValue, ValueTexts>;
}

/** Everything of a reply that depends on one flag's value (and, in details, its reason and condition index). */
interface ValueTexts {
  /** The payload these texts carry: the flag's payload for the value, the same object every evaluation. */
  payload: unknown;
  /** `"key":value`. */
  entry: string;
  /** `"key":"payload text"` of the legacy payload map; null when the value lists no payload. */
  payloadEntry: string | null;
  /** Reason → condition index + 1 (0 for none) → the detailed reply's `"key":{…}`. */
  details: Map<MatchReason, string[]>;
}

/** Values are a flag's variants and true/false; this only bounds what a bug elsewhere could add. */
const MAX_VALUES_PER_FLAG = 64;
const MAX_CACHED_INDEX = 1000;

/** The flag's texts, made on its first reply and kept in the slot the snapshot leaves for them (one property read). */
function textsOf(flag: SnapshotFlag): FlagReplyTexts {
  return (flag.replyTexts ??= flagReplyTexts(flag)) as FlagReplyTexts;
}

/** The texts of a snapshot flag that do not depend on its evaluation; the rest fill in as evaluations come. */
function flagReplyTexts(flag: { id: number; key: string; version: number }): FlagReplyTexts {
  const metadata = JSON.stringify({ id: flag.id, version: flag.version, description: null }).slice(0, -1);
  return { key: JSON.stringify(flag.key), indexKey: isArrayIndex(flag.key), metadata, byValue: new Map() };
}

function isArrayIndex(key: string): boolean {
  return /^(0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/**
 * Kept texts are joined into every reply: made flat once (a concatenation is a tree of pieces until
 * something reads it as a whole; converting it to a number does), each join copies them in one go.
 */
function flat(text: string): string {
  Number(text);
  return text;
}

const valueJson = (value: FlagValue) => (typeof value === 'string' ? JSON.stringify(value) : value ? 'true' : 'false');

function makeValueTexts(parts: FlagReplyTexts, { value, payload }: FlagEvaluation): ValueTexts {
  const text = value === false ? null : payloadText(payload);
  return { payload, entry: flat(`${parts.key}:${valueJson(value)}`), payloadEntry: text === null ? null : flat(`${parts.key}:${JSON.stringify(text)}`), details: new Map() };
}

/** The texts of this evaluation's value; made on the spot (not kept) if the payload is not the kept one. */
function valueTexts(flag: SnapshotFlag, evaluation: FlagEvaluation): ValueTexts {
  const parts = textsOf(flag);
  const kept = parts.byValue.get(evaluation.value);
  if (kept && kept.payload === evaluation.payload) return kept;
  const made = makeValueTexts(parts, evaluation);
  if (!kept && parts.byValue.size < MAX_VALUES_PER_FLAG) parts.byValue.set(evaluation.value, made);
  return made;
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

/** Pushes each result's text, comma-separated, skipping results whose text is null. */
function pushEach(parts: string[], outcome: FlagsOutcome, textOf: (flag: SnapshotFlag, evaluation: FlagEvaluation) => string | null): void {
  let first = true;
  for (const { flag, evaluation } of outcome.results) {
    const text = textOf(flag, evaluation);
    if (text === null) continue;
    if (!first) parts.push(',');
    parts.push(text);
    first = false;
  }
}

const enabledKey = (flag: SnapshotFlag, evaluation: FlagEvaluation) => (evaluation.value === false ? null : textsOf(flag).key);
const enabledEntry = (flag: SnapshotFlag, evaluation: FlagEvaluation) => (evaluation.value === false ? null : valueTexts(flag, evaluation).entry);
const anyEntry = (flag: SnapshotFlag, evaluation: FlagEvaluation) => valueTexts(flag, evaluation).entry;
const payloadEntry = (flag: SnapshotFlag, evaluation: FlagEvaluation) => valueTexts(flag, evaluation).payloadEntry;

function writeFlagsBody(parts: string[], format: ReplyFormat, outcome: FlagsOutcome): void {
  const errors = `,"errorsWhileComputingFlags":${outcome.errors}`;
  switch (format.shape) {
    case 'decide-v1':
      parts.push('"featureFlags":[');
      pushEach(parts, outcome, enabledKey);
      parts.push(']');
      return;
    case 'decide-v2':
      parts.push('"featureFlags":{');
      pushEach(parts, outcome, enabledEntry);
      parts.push('}');
      return;
    case 'legacy':
      parts.push('"featureFlags":{');
      pushEach(parts, outcome, anyEntry);
      parts.push('},"featureFlagPayloads":{');
      pushEach(parts, outcome, payloadEntry);
      parts.push('}', errors);
      return;
    case 'detailed':
      parts.push('"flags":{');
      pushEach(parts, outcome, detailText);
      parts.push('}', errors);
      return;
  }
}

/** `"key":{"key":…,"enabled":…,…}`, kept per value, reason and condition index. */
function detailText(flag: SnapshotFlag, evaluation: FlagEvaluation): string {
  const texts = valueTexts(flag, evaluation);
  const index = evaluation.conditionIndex;
  const slot = index === null ? 0 : Number.isInteger(index) && index >= 0 && index < MAX_CACHED_INDEX ? index + 1 : -1;
  if (slot < 0) return makeDetailText(flag, evaluation);
  let bySlot = texts.details.get(evaluation.reason);
  if (!bySlot) texts.details.set(evaluation.reason, (bySlot = []));
  return (bySlot[slot] ??= makeDetailText(flag, evaluation));
}

function makeDetailText(flag: SnapshotFlag, evaluation: FlagEvaluation): string {
  const parts = textsOf(flag);
  const enabled = evaluation.value !== false;
  const variant = typeof evaluation.value === 'string' ? JSON.stringify(evaluation.value) : 'null';
  const payload = enabled ? JSON.stringify(payloadText(evaluation.payload)) : 'null';
  const reason = JSON.stringify(reasonJson(evaluation));
  return flat(`${parts.key}:{"key":${parts.key},"enabled":${enabled},"variant":${variant},"reason":${reason},"metadata":${parts.metadata},"payload":${payload},"has_experiment":false}}`);
}
