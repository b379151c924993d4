import { decideFormat, flagsFormat, formatReply, payloadText } from '../../../src/modules/decide/decide-responses';
import type { EvaluatedFlag } from '../../../src/modules/decide/flag-evaluation.service';
import type { SnapshotFlag } from '../../../src/modules/decide/flag-snapshot';
import { compileFlag } from '../../../src/kernel/compiled-flag';

const flag = (id: number, key: string): SnapshotFlag => ({
  id,
  key,
  name: '',
  active: true,
  ensureExperienceContinuity: false,
  version: 3,
  filters: { groups: [] },
  personKeys: new Set(),
  usesCohorts: false,
  usesContinuity: false,
  groupIndexes: new Set(),
  compiled: compileFlag({ id, key, ensureExperienceContinuity: false, filters: { groups: [] } }),
  replyTexts: undefined,
});

const results: EvaluatedFlag[] = [
  { flag: flag(1, 'on'), evaluation: { value: true, reason: 'condition_match', conditionIndex: 1, payload: '{"a":1}' } },
  { flag: flag(2, 'variant'), evaluation: { value: 'b', reason: 'condition_match', conditionIndex: 0, payload: { raw: true } } },
  { flag: flag(3, 'off'), evaluation: { value: false, reason: 'out_of_rollout_bound', conditionIndex: 0, payload: null } },
];
const outcome = { results, errors: false, requestId: 'req', evaluatedAt: 1_763_900_000_000 };
const q = (query: Record<string, string>) => query;

describe('decide reply formats', () => {
  it.each([
    [{}, 'decide-v1'],
    [{ v: '1' }, 'decide-v1'],
    [{ v: 'abc' }, 'decide-v1'],
    [{ v: '2' }, 'decide-v2'],
    [{ v: '3' }, 'legacy'],
    [{ v: '4' }, 'detailed'],
    [{ v: '5' }, 'detailed'],
    [{ v: '+3' }, 'legacy'],
    [{ v: '3.0' }, 'decide-v1'],
    [{ v: '-4' }, 'decide-v1'],
    [{ v: '' }, 'decide-v1'],
  ])('/decide/ with %j is %s with the config', (query, shape) => {
    expect(decideFormat(q(query))).toEqual({ shape, withConfig: true });
  });

  it.each([
    [{}, { shape: 'detailed', withConfig: true }],
    [{ v: '2' }, { shape: 'detailed', withConfig: false }],
    [{ v: '2', config: 'true' }, { shape: 'detailed', withConfig: true }],
    [{ v: '1' }, { shape: 'legacy', withConfig: false }],
    [{ config: 'true' }, { shape: 'legacy', withConfig: true }],
    [{ config: 'false' }, { shape: 'legacy', withConfig: false }],
    [{ v: 'abc' }, { shape: 'legacy', withConfig: false }],
    [{ v: '2.0' }, { shape: 'legacy', withConfig: false }],
    [{ v: '-1' }, { shape: 'legacy', withConfig: false }],
    [{ v: '99999999999' }, { shape: 'legacy', withConfig: false }],
    [{ v: '' }, { shape: 'detailed', withConfig: true }],
    [{ v: '3' }, { shape: 'detailed', withConfig: false }],
  ])('/flags/ with %j', (query, format) => {
    expect(flagsFormat(q(query))).toEqual(format);
  });

  it('v1 lists enabled keys, v2 maps them to their values', () => {
    expect(formatReply({ shape: 'decide-v1', withConfig: false }, outcome, 't')).toEqual({ featureFlags: ['on', 'variant'], requestId: 'req', evaluatedAt: 1_763_900_000_000 });
    expect(formatReply({ shape: 'decide-v2', withConfig: false }, outcome, 't')).toEqual({ featureFlags: { on: true, variant: 'b' }, requestId: 'req', evaluatedAt: 1_763_900_000_000 });
  });

  it('legacy carries every value and the payloads of enabled flags as JSON text', () => {
    expect(formatReply({ shape: 'legacy', withConfig: false }, { ...outcome, errors: true }, 't')).toEqual({
      featureFlags: { on: true, variant: 'b', off: false },
      featureFlagPayloads: { on: '{"a":1}', variant: '{"raw":true}' },
      errorsWhileComputingFlags: true,
      requestId: 'req',
      evaluatedAt: 1_763_900_000_000,
    });
  });

  it('detailed gives reasons with 1-based descriptions and metadata', () => {
    const reply = formatReply({ shape: 'detailed', withConfig: false }, outcome, 't') as { flags: Record<string, unknown> };
    expect(reply.flags.on).toEqual({
      key: 'on',
      enabled: true,
      variant: null,
      reason: { code: 'condition_match', condition_index: 1, description: 'Matched condition set 2' },
      metadata: { id: 1, version: 3, description: null, payload: '{"a":1}', has_experiment: false },
    });
    expect(reply.flags.off).toMatchObject({ enabled: false, reason: { description: 'Out of rollout bound' }, metadata: { payload: null } });
  });

  it('adds the config block on request', () => {
    expect(formatReply({ shape: 'decide-v1', withConfig: true }, outcome, 't')).toMatchObject({
      config: { enable_collect_everything: true },
      editorParams: {},
      isAuthenticated: false,
      supportedCompression: ['gzip', 'gzip-js', 'lz64'],
    });
  });

  it('payload text: strings stay, other JSON is serialised, nothing is null', () => {
    expect([payloadText('"x"'), payloadText(5), payloadText(null), payloadText(undefined)]).toEqual(['"x"', '5', null, null]);
  });
});
