import fc from 'fast-check';
import { replyJson } from '../../../src/modules/decide/decide-reply-json';
import { formatReply, ReplyFormat } from '../../../src/modules/decide/decide-responses';
import type { FlagEvaluation, MatchReason } from '../../../src/kernel/evaluate';
import { compileFlag } from '../../../src/kernel/compiled-flag';
import type { EvaluatedFlag } from '../../../src/modules/decide/flag-evaluation.service';
import type { SnapshotFlag } from '../../../src/modules/decide/flag-snapshot';

const REASONS: MatchReason[] = ['condition_match', 'no_condition_match', 'out_of_rollout_bound', 'no_group_type', 'super_condition_value', 'holdout_condition_value'];
const FORMATS: ReplyFormat[] = (['decide-v1', 'decide-v2', 'legacy', 'detailed'] as const).flatMap((shape) => [
  { shape, withConfig: true },
  { shape, withConfig: false },
]);

function snapshotFlag(id: number, key: string, version: number): SnapshotFlag {
  const filters = { groups: [] };
  return {
    id,
    key,
    name: '',
    active: true,
    ensureExperienceContinuity: false,
    version,
    filters,
    personKeys: new Set(),
    usesCohorts: false,
    usesContinuity: false,
    groupIndexes: new Set(),
    compiled: compileFlag({ id, key, ensureExperienceContinuity: false, filters }),
    replyTexts: undefined,
  };
}

const key = fc.oneof(fc.string(), fc.constantFrom('beta', '__proto__', '12', '0', '01', '4294967295', 'ZOË \u{1F600}', '\ud800', 'a"b\\c'));
const evaluation: fc.Arbitrary<FlagEvaluation> = fc.record({
  value: fc.oneof(fc.boolean(), fc.string(), fc.constantFrom('control', 'test')),
  reason: fc.constantFrom(...REASONS),
  conditionIndex: fc.oneof(fc.constant(null), fc.nat(5)),
  payload: fc.oneof(fc.constant(null), fc.constant(undefined), fc.string(), fc.jsonValue(), fc.constant('{"a":1}')),
});

describe(replyJson.name, () => {
  it('writes exactly the text JSON.stringify gives for the reply object, in every shape', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ key, id: fc.nat(), version: fc.nat(9), evaluation }), { selector: (r) => r.key, maxLength: 12 }),
        fc.boolean(),
        fc.constantFrom(...FORMATS),
        (rows, errors, format) => {
          const results: EvaluatedFlag[] = rows.map((row) => ({ flag: snapshotFlag(row.id, row.key, row.version), evaluation: row.evaluation }));
          const outcome = { results, errors, requestId: 'a1b2c3', evaluatedAt: 1_763_900_000_123 };
          expect(replyJson(format, outcome, 'phc_token')).toBe(JSON.stringify(formatReply(format, outcome, 'phc_token')));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('gives the same text on a second reply from the same snapshot flags (cached pieces)', () => {
    const flags = [snapshotFlag(1, 'a', 1), snapshotFlag(2, 'b', 4)];
    const evaluations: FlagEvaluation[] = [
      { value: 'control', reason: 'condition_match', conditionIndex: 0, payload: { color: 'blue' } },
      { value: true, reason: 'condition_match', conditionIndex: 1, payload: '"plain"' },
    ];
    const outcome = { results: flags.map((flag, i) => ({ flag, evaluation: evaluations[i] })), errors: false, requestId: 'r', evaluatedAt: 1_763_900_000_000 };
    for (const format of FORMATS) {
      const expected = JSON.stringify(formatReply(format, outcome, 't'));
      expect(replyJson(format, outcome, 't')).toBe(expected);
      expect(replyJson(format, outcome, 't')).toBe(expected);
    }
  });

  it('keeps texts per value, reason and condition index, and never serves a kept text for another payload', () => {
    const flag = snapshotFlag(3, 'multi', 2);
    const replies = (evaluations: FlagEvaluation[]) =>
      fc.assert(
        fc.property(fc.shuffledSubarray(evaluations, { minLength: 1 }), fc.constantFrom(...FORMATS), (picked, format) => {
          for (const evaluation of picked) {
            const outcome = { results: [{ flag, evaluation }], errors: false, requestId: 'r', evaluatedAt: 1 };
            expect(replyJson(format, outcome, 't')).toBe(JSON.stringify(formatReply(format, outcome, 't')));
          }
        }),
        { numRuns: 300 },
      );
    replies([
      { value: 'control', reason: 'condition_match', conditionIndex: 0, payload: { a: 1 } },
      { value: 'control', reason: 'condition_match', conditionIndex: 2, payload: { a: 1 } },
      { value: 'control', reason: 'super_condition_value', conditionIndex: 0, payload: { a: 1 } },
      { value: 'control', reason: 'condition_match', conditionIndex: 0, payload: 'other' },
      { value: 'control', reason: 'condition_match', conditionIndex: 0, payload: null },
      { value: 'test', reason: 'condition_match', conditionIndex: 1, payload: null },
      { value: true, reason: 'condition_match', conditionIndex: 1, payload: '[1]' },
      { value: false, reason: 'out_of_rollout_bound', conditionIndex: 1, payload: null },
      { value: false, reason: 'no_condition_match', conditionIndex: 1, payload: null },
      { value: false, reason: 'no_condition_match', conditionIndex: 5000, payload: null },
    ]);
  });
});
