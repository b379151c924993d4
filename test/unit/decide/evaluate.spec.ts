import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { join } from 'node:path';
import { EvaluableFlag, evaluateFlag, EvaluationSubject } from '../../../src/kernel/evaluate';
import { calculateHash, rolloutHash, variantHash } from '../../../src/kernel/hash';

const vectors = JSON.parse(readFileSync(join(__dirname, '../../fixtures/flag-consistency.json'), 'utf8'));

function subject(distinctId: string, overrides: Partial<EvaluationSubject> = {}): EvaluationSubject {
  return { distinctId, personProperties: {}, groups: {}, groupProperties: {}, groupTypes: new Map(), now: new Date(), ...overrides };
}

function flag(key: string, filters: Record<string, unknown>, extra: Partial<EvaluableFlag> = {}): EvaluableFlag {
  return { id: 1, key, filters, ensureExperienceContinuity: false, ...extra };
}

describe('flag hash', () => {
  it("reproduces the debug hashes PostHog's own flag tests print", () => {
    expect(rolloutHash('simple-flag', 'distinct_id_0')).toBe(0.7836963764220432);
    expect(rolloutHash('multivariate-flag', 'distinct_id_0')).toBe(0.502037796130735);
    expect(variantHash('multivariate-flag', 'distinct_id_0')).toBe(0.6186454537930379);
    expect(rolloutHash('simple-flag', 'distinct_id_1')).toBe(0.3397069926995401);
  });

  it('reproduces the holdout hash vectors bit-exactly', () => {
    for (const v of vectors.holdout_hash_vectors.vectors) expect(calculateHash(v.prefix, v.identifier, v.salt)).toBe(v.expected_hash);
  });
});

describe(evaluateFlag.name, () => {
  it.each<[string, any]>(vectors.cases.map((c: { name: string }) => [c.name, c]))('matches the %s consistency list for 1,000 distinct ids', (_name, c: any) => {
    const evaluable = flag(c.flag.key, c.flag.filters);
    const actual = c.expected.map((_: unknown, i: number) => evaluateFlag(evaluable, subject(c.distinct_id_template.replace('{i}', String(i)))).value);
    expect(actual).toEqual(c.expected);
  });

  describe("PostHog's evaluation_reasons vector", () => {
    const groupTypes = new Map([[0, 'organization'], [1, 'company']]);
    const flags = {
      alpha: flag('alpha-feature', {
        groups: [{ properties: [], rollout_percentage: 20 }],
        multivariate: { variants: [{ key: 'first-variant', rollout_percentage: 50 }, { key: 'second-variant', rollout_percentage: 25 }, { key: 'third-variant', rollout_percentage: 25 }] },
      }),
      beta: flag('beta-feature', { groups: [{ properties: [{ key: 'beta-property', value: 'beta-value', type: 'person' }], rollout_percentage: 81 }] }),
      group: flag('group-feature', { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 61 }] }),
    };
    const run = (s: EvaluationSubject) =>
      Object.fromEntries(Object.entries(flags).map(([name, f]) => {
        const r = evaluateFlag(f, s);
        return [name, [r.value, r.reason, r.conditionIndex]];
      }));

    it('for distinct_id "test"', () => {
      expect(run(subject('test', { groupTypes }))).toEqual({
        alpha: [false, 'out_of_rollout_bound', 0],
        beta: [false, 'no_condition_match', 0],
        group: [false, 'no_group_type', null],
      });
    });

    it('for distinct_id "2" of a person with beta-property', () => {
      const result = run(subject('2', { groupTypes, personProperties: { 'beta-property': 'beta-value' } }));
      expect(result.alpha).toEqual(['first-variant', 'condition_match', 0]);
      expect(result.beta).toEqual([true, 'condition_match', 0]);
    });

    it('for an organization passed as a group', () => {
      const result = run(subject('org1234', { groupTypes, groups: { organization: 'org1234' } }));
      expect(result.alpha).toEqual([false, 'out_of_rollout_bound', 0]);
      expect(result.group).toEqual([true, 'condition_match', 0]);
    });
  });

  it("agrees with PostHog's my_flags vector", () => {
    const alpha = flag('alpha-feature', {
      groups: [{ properties: [], rollout_percentage: 20 }],
      multivariate: { variants: [{ key: 'first-variant', rollout_percentage: 50 }, { key: 'second-variant', rollout_percentage: 25 }, { key: 'third-variant', rollout_percentage: 25 }] },
    });
    expect(evaluateFlag(alpha, subject('distinct_id')).value).toBe('third-variant');
    expect(evaluateFlag(alpha, subject('distinct_id_0')).value).toBe(false);
    expect(evaluateFlag(flag('red_button', {}), subject('anyone')).value).toBe(true);
  });

  it('buckets continuity flags on the hash key override', () => {
    const continuity = { ensureExperienceContinuity: true };
    const beta = flag('beta-feature', { groups: [{ properties: [], rollout_percentage: 30 }] }, continuity);
    const multi = flag('multivariate-flag', {
      groups: [{ properties: [], rollout_percentage: null }],
      multivariate: { variants: [{ key: 'first-variant', rollout_percentage: 50 }, { key: 'second-variant', rollout_percentage: 25 }, { key: 'third-variant', rollout_percentage: 25 }] },
    }, continuity);
    const overridden = subject('other_id', { hashKeyOverrides: new Map([['beta-feature', 'example_id'], ['multivariate-flag', 'example_id']]) });
    expect([evaluateFlag(beta, overridden).value, evaluateFlag(multi, overridden).value]).toEqual([true, 'first-variant']);
    expect([evaluateFlag(beta, subject('other_id')).value, evaluateFlag(multi, subject('other_id')).value]).toEqual([false, 'third-variant']);
  });

  it('evaluates conditions in the order listed and reports the last best reason', () => {
    const f = flag('ordered', {
      groups: [
        { properties: [{ key: 'plan', value: 'pro', type: 'person' }] },
        { properties: [], rollout_percentage: 100, variant: 'b' },
        { properties: [], rollout_percentage: 100, variant: 'a' },
      ],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
      payloads: { b: '{"x": 1}' },
    });
    expect(evaluateFlag(f, subject('u'))).toEqual({ value: 'b', reason: 'condition_match', conditionIndex: 1, payload: '{"x": 1}' });
    const none = flag('none', { groups: [{ properties: [{ key: 'a', value: 1, type: 'person' }] }, { properties: [{ key: 'b', value: 1, type: 'person' }] }] });
    expect(evaluateFlag(none, subject('u'))).toEqual({ value: false, reason: 'no_condition_match', conditionIndex: 1, payload: null });
  });

  it('serves holdouts their own variant and payload', () => {
    const f = flag('exp', { groups: [{ rollout_percentage: 100 }], holdout_groups: [{ properties: [], rollout_percentage: 100, variant: 'holdout-7' }], payloads: {} });
    expect(evaluateFlag(f, subject('u'))).toEqual({ value: 'holdout-7', reason: 'holdout_condition_value', conditionIndex: 0, payload: null });
  });

  it('reads payloads and groups by own keys only, whatever the variant or group type is called', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const variants = flag('mv', { groups: [{ rollout_percentage: 100 }], multivariate: { variants: [{ key: name, rollout_percentage: 100 }] }, payloads: {} });
      expect(evaluateFlag(variants, subject('u'))).toEqual({ value: name, reason: 'condition_match', conditionIndex: 0, payload: null });
      const holdout = flag('h', { groups: [{ rollout_percentage: 100 }], holdout_groups: [{ properties: [], rollout_percentage: 100, variant: name }] });
      expect(evaluateFlag(holdout, subject('u')).payload).toBeNull();
      const byGroup = flag('g', { aggregation_group_type_index: 0, groups: [{ rollout_percentage: 100 }] });
      const groupTypes = new Map([[0, name]]);
      expect(evaluateFlag(byGroup, subject('u', { groupTypes }))).toEqual({ value: false, reason: 'no_group_type', conditionIndex: null, payload: null });
      const groups = Object.fromEntries([[name, 'acme']]);
      expect(evaluateFlag(byGroup, subject('u', { groupTypes, groups })).reason).toBe('condition_match');
    }
  });

  it('follows flag dependencies and cohorts through the subject', () => {
    const dependent = flag('dependent', { groups: [{ properties: [{ key: '5', type: 'flag', operator: 'flag_evaluates_to', value: 'blue' }, { key: 'id', type: 'cohort', value: 3 }] }] });
    const s = (flagValue: string | boolean, member: boolean) => subject('u', { flagValue: () => flagValue, inCohort: () => member });
    expect(evaluateFlag(dependent, s('blue', true)).value).toBe(true);
    expect(evaluateFlag(dependent, s('red', true)).value).toBe(false);
    expect(evaluateFlag(dependent, s('blue', false)).value).toBe(false);
  });
});

describe('evaluateFlag on arbitrary input', () => {
  const property = fc.record(
    {
      key: fc.oneof(fc.string(), fc.constantFrom('plan', 'email', 'id')),
      value: fc.jsonValue(),
      operator: fc.oneof(fc.constantFrom('exact', 'is_not', 'regex', 'not_regex', 'gt', 'lt', 'is_date_before', 'semver_tilde', 'in', 'flag_evaluates_to'), fc.jsonValue()),
      type: fc.oneof(fc.constantFrom('person', 'group', 'cohort', 'flag', undefined), fc.string()),
      negation: fc.oneof(fc.boolean(), fc.jsonValue()),
      group_type_index: fc.oneof(fc.integer({ min: -1, max: 5 }), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const condition = fc.record(
    { properties: fc.oneof(fc.array(property, { maxLength: 4 }), fc.jsonValue()), rollout_percentage: fc.oneof(fc.double(), fc.jsonValue()), variant: fc.jsonValue() },
    { requiredKeys: [] },
  );
  const filters = fc.record(
    {
      groups: fc.oneof(fc.array(condition, { maxLength: 4 }), fc.jsonValue()),
      multivariate: fc.oneof(fc.record({ variants: fc.array(fc.record({ key: fc.string(), rollout_percentage: fc.double() }), { maxLength: 4 }) }), fc.jsonValue()),
      payloads: fc.jsonValue(),
      aggregation_group_type_index: fc.oneof(fc.integer({ min: -1, max: 5 }), fc.jsonValue()),
      super_groups: fc.oneof(fc.array(condition, { maxLength: 2 }), fc.jsonValue()),
      holdout_groups: fc.oneof(fc.array(condition, { maxLength: 2 }), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );

  it('never throws and always answers a value, a known reason and a payload', () => {
    fc.assert(
      fc.property(filters, fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (f, properties, distinctId) => {
        const result = evaluateFlag(flag('any', f as Record<string, unknown>), {
          ...subject(distinctId, { personProperties: properties, groups: { company: 'c' }, groupProperties: { company: properties }, groupTypes: new Map([[0, 'company']]) }),
          inCohort: () => true,
          flagValue: () => 'v',
        });
        expect(typeof result.value === 'boolean' || typeof result.value === 'string').toBe(true);
        expect(['condition_match', 'no_condition_match', 'out_of_rollout_bound', 'no_group_type', 'super_condition_value', 'holdout_condition_value']).toContain(result.reason);
        expect(result.payload).not.toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});
