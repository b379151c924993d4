import fc from 'fast-check';
import { ApiError } from '../../../src/common/errors/api-error';
import { checkDefinition, nextDefinition, servedFilters, servedGroups } from '../../../src/modules/cohorts/cohort-definition';
import { checkDeletable, checkReferences, checkUsableByFlags, CohortNode, flagsUsing } from '../../../src/modules/cohorts/cohort-graph';
import { parseAddPersons, parseRemovePerson, personUuids } from '../../../src/modules/cohorts/static-members';

const person = (key: string, value: unknown) => ({ key, type: 'person', value, operator: 'exact' });
const ref = (id: number) => ({ key: 'id', type: 'cohort', value: id });
const tree = (...values: unknown[]) => ({ properties: { type: 'AND', values } });
const BEHAVIOURAL = { key: '$pageview', type: 'behavioral', value: 'performed_event', event_type: 'events' };

function detailOf(action: () => void): string | null {
  try {
    action();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error.detail;
    throw error;
  }
}

function graph(...nodes: Array<Partial<CohortNode> & { id: number }>): Map<number, CohortNode> {
  return new Map(nodes.map((n) => [n.id, { name: `c${n.id}`, isStatic: false, filters: {}, ...n }]));
}

describe(nextDefinition.name, () => {
  const stored = { properties: tree(person('a', 1)).properties, groups: [{ properties: [person('b', 2)] }] };

  it('keeps the stored definition when neither filters nor groups are sent', () => {
    expect(nextDefinition(stored, {})).toBe(stored);
  });

  it('lets whichever form is sent define the cohort', () => {
    expect(nextDefinition(stored, { filters: tree(person('c', 3)) })).toEqual({ properties: tree(person('c', 3)).properties });
    expect(nextDefinition(stored, { groups: [] })).toEqual({ groups: [] });
    expect(nextDefinition({}, { filters: tree(), groups: [] })).toEqual({ properties: tree().properties, groups: [] });
  });
});

describe(servedFilters.name, () => {
  it('serves the stored tree as is', () => {
    expect(servedFilters({ properties: { type: 'OR', values: [] } })).toEqual({ properties: { type: 'OR', values: [] } });
  });

  it('serves legacy groups as an OR of ANDs, behavioural groups as behavioral filters', () => {
    const groups = [{ properties: [person('plan', 'pro')] }, { action_id: 7, days: 14 }, { properties: [] }];
    expect(servedFilters({ groups })).toEqual({
      properties: {
        type: 'OR',
        values: [
          { type: 'AND', values: [person('plan', 'pro')] },
          { type: 'AND', values: [{ key: 7, type: 'behavioral', value: 'performed_event', event_type: 'actions', time_value: 14, time_interval: 'day' }] },
        ],
      },
    });
    expect(servedGroups({ groups })).toBe(groups);
  });

  it('serves an empty definition as PostHog does', () => {
    expect(servedFilters({})).toEqual({ properties: {} });
    expect(servedGroups({})).toEqual([]);
  });
});

describe(checkDefinition.name, () => {
  it('accepts person, cohort and behavioural leaves, negated or not, nested in groups', () => {
    const filters = { properties: { type: 'OR', values: [tree(person('a', 1), { ...ref(3), negation: true }).properties, BEHAVIOURAL, { key: 'x', type: 'person', operator: 'is_set' }] } };
    expect(detailOf(() => checkDefinition({ filters }))).toBeNull();
    expect(detailOf(() => checkDefinition({ groups: [{ properties: [{ key: 'plan', value: 'pro' }] }, { event_id: 3, days: 1 }, {}] }))).toBeNull();
  });

  it('refuses a leaf whose type is no text, even one that cannot be made text (an own toString that is no function)', () => {
    expect(detailOf(() => checkDefinition({ filters: tree({ key: 0, type: { toString: '' } }) }))).toMatch(/^Filters are not valid \(cohorts can only use person, cohort and behavioral filters, not \{"toString":""\}\)/);
  });

  it('refuses trees nested deeper than ten groups', () => {
    let node: unknown = person('a', 1);
    for (let i = 0; i < 11; i++) node = { type: 'AND', values: [node] };
    expect(detailOf(() => checkDefinition({ filters: { properties: node } }))).toBe('Filters are not valid (groups nest at most 10 deep)');
  });

  it('throws only validation errors on generated definitions, accepting some and refusing others at every depth', () => {
    // Mostly well-formed trees with some wrong part (an operator, a value, a type, a group), so inputs get past the
    // first checks and reach the deeper ones; plain JSON noise mixed in.
    const leaf = fc.record(
      {
        key: fc.oneof(fc.constantFrom('email', 'plan', '$browser', 'id'), fc.jsonValue()),
        type: fc.oneof(fc.constantFrom('person', 'cohort', 'behavioral', 'event'), fc.jsonValue()),
        operator: fc.oneof(fc.constantFrom('exact', 'is_not', 'icontains', 'regex', 'gt', 'is_set', 'is_date_before', 'in'), fc.jsonValue()),
        value: fc.oneof(fc.string(), fc.integer(), fc.array(fc.string(), { maxLength: 3 }), fc.jsonValue()),
      },
      { requiredKeys: ['key', 'type'] },
    );
    const { node, group } = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('group'), fc.jsonValue()),
      group: fc.record({ type: fc.oneof(fc.constantFrom('AND', 'OR'), fc.jsonValue()), values: fc.array(tie('node'), { maxLength: 3 }) }),
    }));
    const outcomes = new Map<string, number>();
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: group }, { weight: 1, arbitrary: node }), (properties) => {
        const detail = detailOf(() => checkDefinition({ filters: { properties } }));
        const outcome = detail === null ? 'accepted' : detail.slice(0, 60);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }),
      { numRuns: 2000 },
    );
    expect(outcomes.get('accepted') ?? 0).toBeGreaterThan(0);
    expect(outcomes.size).toBeGreaterThan(3); // refused for several different reasons, not only at the first check
  });
});

describe(checkReferences.name, () => {
  const live = graph({ id: 1, filters: tree(person('a', 1)) }, { id: 2, filters: tree(ref(1)) }, { id: 3, isStatic: true, filters: tree(ref(4)) }, { id: 4, filters: tree(ref(3)) });

  it('accepts references to live cohorts, static ones included', () => {
    expect(detailOf(() => checkReferences(null, live, tree(ref(2), ref(3))))).toBeNull();
    expect(detailOf(() => checkReferences(live.get(4)!, live, tree(ref(3))))).toBeNull();
  });

  it('refuses unknown cohorts', () => {
    expect(detailOf(() => checkReferences(null, live, tree(ref(9))))).toBe('Invalid Cohort ID in filter');
  });

  it('refuses self references and loops through other cohorts', () => {
    expect(detailOf(() => checkReferences(live.get(1)!, live, tree(ref(1))))).toBe('Cohorts cannot reference other cohorts in a loop.');
    expect(detailOf(() => checkReferences(live.get(1)!, live, tree(ref(2))))).toBe('Cohorts cannot reference other cohorts in a loop.');
  });
});

describe(flagsUsing.name, () => {
  const live = graph({ id: 1 }, { id: 2, filters: tree(ref(1)) }, { id: 3, isStatic: true, filters: tree(ref(1)) });
  const flag = (key: string, cohortId: number) => ({ key, name: '', filters: { groups: [{ properties: [ref(cohortId)] }] } });

  it('finds flags through nested cohorts but not through static ones', () => {
    const flags = [flag('direct', 1), flag('nested', 2), flag('static', 3), { key: 'legacy', name: 'Legacy', filters: { properties: [ref(1)] } }];
    expect(flagsUsing(1, flags, live).map((f) => f.key)).toEqual(['direct', 'nested', 'legacy']);
    expect(detailOf(() => checkDeletable(1, flags, live))).toBe(
      'This cohort is used in 3 feature flag(s): direct, nested, Legacy. Please remove the cohort from these feature flags before deleting it.',
    );
    expect(detailOf(() => checkDeletable(3, [], live))).toBeNull();
  });
});

describe(checkUsableByFlags.name, () => {
  const live = graph({ id: 1, name: 'Visitors', filters: tree(BEHAVIOURAL) }, { id: 2, filters: tree(ref(1)) }, { id: 3, isStatic: true, filters: tree(BEHAVIOURAL) });

  it('refuses behavioural filters, directly or through nested cohorts, not through static ones', () => {
    expect(detailOf(() => checkUsableByFlags(tree(BEHAVIOURAL), live))).toBe('Behavioral filters cannot be added to cohorts used in feature flags.');
    expect(detailOf(() => checkUsableByFlags(tree(ref(2)), live))).toBe(
      "A cohort dependency (Visitors) has filters based on events. These cohorts can't be used in feature flags.",
    );
    expect(detailOf(() => checkUsableByFlags(tree(ref(3), person('a', 1)), live))).toBeNull();
  });
});

describe('static member bodies', () => {
  const uuid = '0189a5a4-5b4e-7c3a-9d2e-1f2a3b4c5d6e';

  it('keeps only uuids, lower-cased and once', () => {
    expect(personUuids([uuid.toUpperCase(), uuid, 'x', ''])).toEqual([uuid]);
    expect(parseAddPersons([uuid, 5, 'y'])).toEqual([uuid]);
  });

  it.each<[unknown, string]>([
    [undefined, 'person_ids must be a list'],
    ['a', 'person_ids must be a list'],
    [[], 'person_ids cannot be empty'],
    [Array(1001).fill(uuid), 'List size exceeds limit'],
  ])('refuses person_ids %p', (value, detail) => {
    expect(detailOf(() => parseAddPersons(value))).toBe(detail);
  });

  it.each<[unknown, string]>([
    [undefined, 'person_id is required'],
    ['', 'person_id is required'],
    [[], 'person_id is required'],
    [{}, 'person_id is required'],
    [0, 'person_id is required'],
    [5, 'person_id must be a string'],
    [[uuid], 'person_id must be a string'],
    ['abc', 'person_id must be a valid UUID'],
  ])('refuses person_id %p', (value, detail) => {
    expect(detailOf(() => parseRemovePerson(value))).toBe(detail);
  });
});
