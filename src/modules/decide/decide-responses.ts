import { randomUUID } from 'node:crypto';
import { queryText } from '../../common/http/query-values';
import { UUID_PATTERN } from '../../common/validation/patterns';
import { buildRemoteConfig } from './remote-config-json';
import type { FlagEvaluation, MatchReason } from '../../kernel/evaluate';
import type { EvaluatedFlag } from './flag-evaluation.service';

/** The reply shapes of `/decide/` v1–v4 and `/flags/` v1–v2, as PostHog's flags service and its Django decide sent them. */
export type ReplyShape = 'decide-v1' | 'decide-v2' | 'legacy' | 'detailed';

export interface ReplyFormat {
  shape: ReplyShape;
  withConfig: boolean;
}

export interface FlagsOutcome {
  results: EvaluatedFlag[];
  errors: boolean;
  requestId: string;
  /** When the flags were evaluated, in Unix milliseconds (PostHog's `evaluatedAt`). */
  evaluatedAt: number;
}

const I32_MAX = 2 ** 31 - 1;

/**
 * `?v=` as PostHog's flags service reads it: absent (or empty) is null; a 32-bit integer (sign
 * allowed) is itself; anything else (`abc`, `2.0`, too large) is 1, the oldest shape.
 */
function version(query: Record<string, unknown>): number | null {
  const raw = queryText(query.v);
  if (raw === undefined || raw === '') return null;
  if (!/^[+-]?\d+$/.test(raw)) return 1;
  const v = Number(raw);
  return Math.abs(v) > I32_MAX ? 1 : v;
}

function flagTrue(value: unknown): boolean {
  return value === 'true' || value === '1' || value === 'yes';
}

/** `/decide/` always carries the config; v1 (the default) lists keys, v2 maps them, v3 is legacy, v4+ detailed. */
export function decideFormat(query: Record<string, unknown>): ReplyFormat {
  const v = version(query) ?? 1;
  const shape: ReplyShape = v >= 4 ? 'detailed' : v === 3 ? 'legacy' : v === 2 ? 'decide-v2' : 'decide-v1';
  return { shape, withConfig: true };
}

/**
 * `/flags/`: v2+ detailed, anything else legacy (so `v=abc` too); config on `config=true`, or when
 * neither `v` nor `config` is given (Rust).
 */
export function flagsFormat(query: Record<string, unknown>): ReplyFormat {
  const v = version(query);
  const config = queryText(query.config);
  if (v === null && config === undefined) return { shape: 'detailed', withConfig: true };
  return { shape: v !== null && v >= 2 ? 'detailed' : 'legacy', withConfig: flagTrue(config) };
}

/** Payloads travel as JSON text; SDKs parse them, as PostHog's flags service sends them. */
export function payloadText(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

const DESCRIPTIONS: Record<MatchReason, (index: number | null) => string> = {
  condition_match: (index) => `Matched condition set ${(index ?? 0) + 1}`,
  no_condition_match: () => 'No matching condition set',
  out_of_rollout_bound: () => 'Out of rollout bound',
  no_group_type: () => 'No group type',
  super_condition_value: () => 'Super condition value',
  holdout_condition_value: () => 'Holdout condition value',
};

export function reasonJson(evaluation: FlagEvaluation) {
  return {
    code: evaluation.reason,
    condition_index: evaluation.conditionIndex,
    description: DESCRIPTIONS[evaluation.reason](evaluation.conditionIndex),
  };
}

function detailJson({ flag, evaluation }: EvaluatedFlag) {
  const enabled = evaluation.value !== false;
  return {
    key: flag.key,
    enabled,
    variant: typeof evaluation.value === 'string' ? evaluation.value : null,
    reason: reasonJson(evaluation),
    // Experiments are not part of this service, so no flag has one.
    metadata: { id: flag.id, version: flag.version, description: null, payload: enabled ? payloadText(evaluation.payload) : null, has_experiment: false },
  };
}

function flagsBody(shape: ReplyShape, outcome: FlagsOutcome): Record<string, unknown> {
  const enabled = outcome.results.filter((r) => r.evaluation.value !== false);
  switch (shape) {
    case 'decide-v1':
      return { featureFlags: enabled.map((r) => r.flag.key) };
    case 'decide-v2':
      return { featureFlags: Object.fromEntries(enabled.map((r) => [r.flag.key, r.evaluation.value])) };
    case 'legacy': {
      const payloads = enabled.map((r) => [r.flag.key, payloadText(r.evaluation.payload)] as const).filter(([, text]) => text !== null);
      return {
        featureFlags: Object.fromEntries(outcome.results.map((r) => [r.flag.key, r.evaluation.value])),
        featureFlagPayloads: Object.fromEntries(payloads),
        errorsWhileComputingFlags: outcome.errors,
      };
    }
    case 'detailed':
      return { flags: Object.fromEntries(outcome.results.map((r) => [r.flag.key, detailJson(r)])), errorsWhileComputingFlags: outcome.errors };
  }
}

/** The config block of decide, flattened into the reply beside the flags. */
export function decideConfig(token: string): Record<string, unknown> {
  const { token: _token, hasFeatureFlags: _flags, ...shared } = buildRemoteConfig(token, true);
  return { config: { enable_collect_everything: true }, editorParams: {}, toolbarParams: {}, isAuthenticated: false, ...shared };
}

/** `Object.assign`, not spreads: V8 builds this object of some 20 keys several times faster that way. */
export function formatReply(format: ReplyFormat, outcome: FlagsOutcome, token: string): Record<string, unknown> {
  return Object.assign({}, format.withConfig ? decideConfig(token) : {}, flagsBody(format.shape, outcome), { requestId: outcome.requestId, evaluatedAt: outcome.evaluatedAt });
}

/** The reply's `requestId`: the request's own id when it is a UUID (a client's `X-Request-Id`), as in PostHog. */
export function replyRequestId(httpRequestId: string): string {
  return UUID_PATTERN.test(httpRequestId) ? httpRequestId : randomUUID();
}

/**
 * A GET without `?data=` asks for no flags: PostHog's flags service answers, before any key check, an
 * empty reply in the shape `v` asks for (legacy unless v ≥ 2) with a minimal config.
 */
export function bareGetReply(query: Record<string, unknown>, requestId: string, evaluatedAt: number): string {
  const flags = (version(query) ?? 1) >= 2 ? { flags: {} } : { featureFlags: {}, featureFlagPayloads: {} };
  return JSON.stringify({
    errorsWhileComputingFlags: false,
    ...flags,
    requestId,
    evaluatedAt,
    supportedCompression: ['gzip', 'gzip-js'],
    config: { enable_collect_everything: true },
    toolbarParams: {},
    isAuthenticated: false,
    sessionRecording: false,
  });
}
