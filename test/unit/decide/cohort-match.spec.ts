import fc from 'fast-check';
import { CohortContext, CohortDefinition, inCohort } from '../../../src/kernel/cohort-match';
import { evaluateFlag, EvaluationSubject } from '../../../src/kernel/evaluate';

const NOW = new Date('2026-06-15T12:00:00Z');

const person = (key: string, value: unknown, operator = 'exact', extra: Record<string, unknown> = {}) => ({ key, type: 'person', value, operator, ...extra });
const cohortLeaf = (id: number | string, extra: Record<string, unknown> = {}) => ({ key: 'id', type: 'cohort', value: id, ...extra });
const group = (type: 'AND' | 'OR', values: unknown[]) => ({ type, values });
const tree = (properties: unknown): Record<string, unknown> => ({ properties });

function contextOf(definitions: Array<Partial<CohortDefinition> & { id: number }>, staticMemberships: number[] = []): CohortContext {
  const cohorts = new Map(definitions.map((d) => [d.id, { isStatic: false, filters: {}, ...d }]));
  return { cohorts, staticMemberships: new Set(staticMemberships), now: NOW };
}

describe(inCohort.name, () => {
  const pro = { plan: 'pro', country: 'FR', age: 30 };
  const free = { plan: 'free', country: 'DE', age: 17 };

  it('matches an AND of OR groups of person properties', () => {
    const sut = contextOf([{ id: 1, filters: tree(group('AND', [group('OR', [person('plan', 'pro'), person('plan', 'team')]), person('age', '18', 'gte')])) }]);
    expect(inCohort(1, pro, sut)).toBe(true);
    expect(inCohort(1, free, sut)).toBe(false);
    expect(inCohort(1, { plan: 'team', age: 17 }, sut)).toBe(false);
  });

  it('matches an OR when any branch matches', () => {
    const sut = contextOf([{ id: 1, filters: tree(group('OR', [group('AND', [person('plan', 'pro')]), group('AND', [person('country', 'de')])])) }]);
    expect(inCohort(1, pro, sut)).toBe(true);
    expect(inCohort(1, free, sut)).toBe(true);
    expect(inCohort(1, { plan: 'free', country: 'US' }, sut)).toBe(false);
  });

  it('uses the operators of property matching', () => {
    const sut = contextOf([{ id: 1, filters: tree(group('AND', [person('email', '@acme.com', 'icontains'), person('beta', '', 'is_set')])) }]);
    expect(inCohort(1, { email: 'Jo@ACME.com', beta: null }, sut)).toBe(true);
    expect(inCohort(1, { email: 'jo@acme.com' }, sut)).toBe(false);
  });

  it('negates a leaf with negation: true', () => {
    const sut = contextOf([{ id: 1, filters: tree(group('AND', [person('plan', 'pro', 'exact', { negation: true })])) }]);
    expect(inCohort(1, pro, sut)).toBe(false);
    expect(inCohort(1, free, sut)).toBe(true);
    expect(inCohort(1, {}, sut)).toBe(true);
  });

  it('treats empty groups as always matching', () => {
    expect(inCohort(1, free, contextOf([{ id: 1, filters: tree(group('AND', [])) }]))).toBe(true);
    expect(inCohort(1, free, contextOf([{ id: 1, filters: tree(group('OR', [])) }]))).toBe(true);
    expect(inCohort(1, free, contextOf([{ id: 1, filters: tree({}) }]))).toBe(true);
    expect(inCohort(1, free, contextOf([{ id: 1, filters: {} }]))).toBe(true);
  });

  it('follows nested cohort references, negated ones included', () => {
    const sut = contextOf([
      { id: 1, filters: tree(group('AND', [person('plan', 'pro')])) },
      { id: 2, filters: tree(group('AND', [cohortLeaf(1), person('country', 'fr')])) },
      { id: 3, filters: tree(group('AND', [cohortLeaf('1', { negation: true })])) },
      { id: 4, filters: tree(group('AND', [cohortLeaf(1, { operator: 'not_in' })])) },
    ]);
    expect(inCohort(2, pro, sut)).toBe(true);
    expect(inCohort(2, { ...pro, country: 'DE' }, sut)).toBe(false);
    expect(inCohort(3, pro, sut)).toBe(false);
    expect(inCohort(3, free, sut)).toBe(true);
    expect(inCohort(4, free, sut)).toBe(true);
  });

  it('answers static cohorts from the membership set, ignoring their filters', () => {
    const sut = contextOf(
      [
        { id: 5, isStatic: true, filters: tree(group('AND', [person('plan', 'pro')])) },
        { id: 6, isStatic: true },
        { id: 7, filters: tree(group('AND', [cohortLeaf(5)])) },
      ],
      [5],
    );
    expect(inCohort(5, free, sut)).toBe(true);
    expect(inCohort(6, pro, sut)).toBe(false);
    expect(inCohort(7, free, sut)).toBe(true);
  });

  it('answers false for unknown cohorts, also when referenced', () => {
    const sut = contextOf([{ id: 1, filters: tree(group('AND', [cohortLeaf(99)])) }], [99]);
    expect(inCohort(99, pro, sut)).toBe(false);
    expect(inCohort(1, pro, sut)).toBe(false);
  });

  it('answers false for a cycle of references, negated or not', () => {
    const sut = contextOf([
      { id: 1, filters: tree(group('AND', [person('plan', 'pro'), cohortLeaf(2)])) },
      { id: 2, filters: tree(group('AND', [cohortLeaf(1, { negation: true })])) },
      { id: 3, filters: tree(group('AND', [cohortLeaf(3)])) },
    ]);
    expect(inCohort(1, pro, sut)).toBe(false);
    expect(inCohort(2, pro, sut)).toBe(false);
    expect(inCohort(3, pro, sut)).toBe(false);
  });

  it('follows twenty levels of nesting and no more', () => {
    const chain = (length: number) =>
      contextOf(
        Array.from({ length }, (_, i) => ({
          id: i + 1,
          filters: tree(group('AND', [i + 1 === length ? person('plan', 'pro') : cohortLeaf(i + 2)])),
        })),
      );
    expect(inCohort(1, pro, chain(21))).toBe(true);
    expect(inCohort(1, pro, chain(22))).toBe(false);
  });

  it('reads legacy groups as an OR of AND-ed properties', () => {
    const sut = contextOf([
      { id: 1, filters: { groups: [{ properties: [person('plan', 'pro'), person('country', 'fr')] }, { properties: [person('age', '16', 'lt')] }] } },
      { id: 2, filters: { groups: [{ properties: [{ key: 'plan', value: 'free' }] }] } },
      { id: 3, filters: { groups: [{ action_id: 4, days: 7 }] } },
    ]);
    expect(inCohort(1, pro, sut)).toBe(true);
    expect(inCohort(1, { plan: 'pro', country: 'DE', age: 15 }, sut)).toBe(true);
    expect(inCohort(1, free, sut)).toBe(false);
    expect(inCohort(2, free, sut)).toBe(true);
    expect(inCohort(3, free, sut)).toBe(false);
  });

  it('prefers the property tree over legacy groups when both are stored', () => {
    const sut = contextOf([{ id: 1, filters: { properties: group('AND', [person('plan', 'free')]), groups: [{ properties: [person('plan', 'pro')] }] } }]);
    expect(inCohort(1, free, sut)).toBe(true);
    expect(inCohort(1, pro, sut)).toBe(false);
  });

  it('never matches behavioural or malformed leaves, negated or not', () => {
    const behavioural = { key: '$pageview', type: 'behavioral', value: 'performed_event', event_type: 'events', negation: true };
    const cases: unknown[] = [behavioural, { key: 'x', type: 'event', value: 1 }, { key: 5, type: 'person', value: 1 }, { key: 'plan', type: 'person', operator: 3 }, 'plan', null];
    for (const leaf of cases) {
      expect(inCohort(1, pro, contextOf([{ id: 1, filters: tree(group('OR', [leaf])) }]))).toBe(false);
    }
  });

  it('never throws on arbitrary filters and properties', () => {
    const leafArb = fc.record(
      {
        key: fc.oneof(fc.string(), fc.constant('id'), fc.jsonValue()),
        type: fc.constantFrom('person', 'cohort', 'behavioral', 'AND', 'OR', 'event', undefined),
        value: fc.oneof(fc.jsonValue(), fc.integer({ min: 1, max: 4 })),
        operator: fc.oneof(fc.constantFrom('exact', 'is_not', 'regex', 'gt', 'is_date_before', 'semver_caret', 'in', 'not_in'), fc.jsonValue()),
        negation: fc.jsonValue(),
        values: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    const { tree: treeArb } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, leafArb, fc.jsonValue(), fc.record({ type: fc.constantFrom('AND', 'OR'), values: fc.array(tie('tree'), { maxLength: 4 }) })),
    }));
    const filtersArb = fc.oneof(fc.record({ properties: treeArb }), fc.record({ groups: fc.oneof(fc.array(fc.record({ properties: fc.array(treeArb) })), fc.jsonValue()) }), fc.dictionary(fc.string(), fc.jsonValue()));
    fc.assert(
      fc.property(fc.array(filtersArb, { minLength: 1, maxLength: 4 }), fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), (all, properties, isStatic) => {
        const sut = contextOf(all.map((filters, i) => ({ id: i + 1, filters: filters as Record<string, unknown>, isStatic: isStatic && i === 0 })), [1]);
        for (let id = 0; id <= all.length + 1; id++) expect(typeof inCohort(id, properties, sut)).toBe('boolean');
      }),
    );
  });
});

describe(`${evaluateFlag.name} with cohort conditions`, () => {
  const cohorts = contextOf([{ id: 1, filters: tree(group('AND', [person('plan', 'pro')])) }]);
  const subject = (personProperties: Record<string, unknown>): EvaluationSubject => ({
    distinctId: 'user-1',
    personProperties,
    groups: {},
    groupProperties: {},
    groupTypes: new Map(),
    inCohort: (id, properties) => inCohort(id, properties, cohorts),
    now: NOW,
  });
  const flag = (property: Record<string, unknown>) => ({
    id: 1,
    key: 'cohort-flag',
    filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 1, ...property }], rollout_percentage: 100 }] },
    ensureExperienceContinuity: false,
  });

  it.each<[string, Record<string, unknown>, boolean, boolean]>([
    ['no operator', {}, true, false],
    ['in', { operator: 'in' }, true, false],
    ['not_in', { operator: 'not_in' }, false, true],
    ['negation', { negation: true }, false, true],
    ['not_in with negation', { operator: 'not_in', negation: true }, true, false],
  ])('honours %s', (_name, property, forMember, forOthers) => {
    expect(evaluateFlag(flag(property), subject({ plan: 'pro' })).value).toBe(forMember);
    expect(evaluateFlag(flag(property), subject({ plan: 'free' })).value).toBe(forOthers);
  });
});
