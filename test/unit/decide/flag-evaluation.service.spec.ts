import type { EvaluationContext, StoredPerson } from '../../../src/modules/decide/evaluation-context.repository';
import { EvaluationRequest, FlagEvaluationService } from '../../../src/modules/decide/flag-evaluation.service';
import { buildSnapshot } from '../../../src/modules/decide/flag-snapshot';

const stored = (id: number, key: string, filters: Record<string, unknown>, active = true) => ({ id, key, name: '', active, ensureExperienceContinuity: false, version: 1, filters });
const everyone = (properties: unknown[] = []) => ({ groups: [{ properties, rollout_percentage: 100 }] });
const plan = (value: string) => ({ key: 'plan', value, operator: 'exact', type: 'person' });
const dependsOn = (id: number) => ({ key: String(id), type: 'flag', value: true, operator: 'flag_evaluates_to' });

const snapshot = buildSnapshot(
  1,
  '1',
  [
    stored(1, 'pro', everyone([plan('pro')])),
    stored(2, 'pro-too', everyone([dependsOn(1)])),
    stored(3, 'pro-three', everyone([dependsOn(2)])),
    stored(4, 'off', everyone(), false),
    stored(5, 'needs-off', everyone([dependsOn(4)])),
  ],
  [],
  [],
);

/** An evaluation context in memory that knows some persons and counts the lookups; typed, so it follows the seam. */
function fakeContext(persons: Record<string, Record<string, unknown>>): { lookups: string[]; context: EvaluationContext } {
  const lookups: string[] = [];
  const context: EvaluationContext = {
    person: async (_projectId: number, distinctId: string): Promise<StoredPerson | null> => {
      lookups.push(distinctId);
      return persons[distinctId] ? { id: 1, properties: persons[distinctId], staticCohortIds: [] } : null;
    },
    groups: async () => new Map(),
    hashKeyOverrides: async () => new Map(),
    writeHashKeyOverrides: async () => undefined,
  };
  return { lookups, context };
}

const request = (distinctId: string, personProperties: Record<string, unknown> = {}): EvaluationRequest => ({ distinctId, groups: {}, personProperties, groupProperties: {} });

describe(FlagEvaluationService.name, () => {
  const values = async (sut: FlagEvaluationService, req: EvaluationRequest) =>
    Object.fromEntries((await sut.evaluate(snapshot, req)).results.map((r) => [r.flag.key, r.evaluation.value]));

  it('evaluates dependencies, chained, against the same person as the flags that name them', async () => {
    const { context } = fakeContext({ alice: { plan: 'pro' }, bob: { plan: 'free' } });
    const sut = new FlagEvaluationService(context);
    expect(await values(sut, request('alice'))).toEqual({ pro: true, 'pro-too': true, 'pro-three': true, 'needs-off': false });
    expect(await values(sut, request('bob'))).toEqual({ pro: false, 'pro-too': false, 'pro-three': false, 'needs-off': false });
  });

  it('lets request properties override the stored ones, dependencies included', async () => {
    const { context } = fakeContext({ bob: { plan: 'free' } });
    const sut = new FlagEvaluationService(context);
    expect(await values(sut, request('bob', { plan: 'pro' }))).toMatchObject({ pro: true, 'pro-three': true });
  });

  it('looks the person up once per request, and not at all when the request carries every property read', async () => {
    const { context, lookups } = fakeContext({ alice: { plan: 'pro' } });
    const sut = new FlagEvaluationService(context);
    await sut.evaluate(snapshot, request('alice'));
    await sut.evaluate(snapshot, request('carol', { plan: 'free' }));
    expect(lookups).toEqual(['alice']);
  });

  it('lets other callbacks run while one request evaluates many slow flags, instead of holding the event loop', async () => {
    const condition = { key: 'bio', value: '(.*a){20}$', operator: 'regex', type: 'person' };
    const slow = buildSnapshot(1, '1', Array.from({ length: 40 }, (_, i) => stored(100 + i, `slow-${i}`, everyone([condition]))), [], []);
    const sut = new FlagEvaluationService(fakeContext({}).context);
    const order: string[] = [];
    setImmediate(() => order.push('another callback'));
    // The request carries every property the flags read: nothing is loaded, so only the evaluation could let it run.
    const outcome = await sut.evaluate(slow, request('x', { bio: 'a'.repeat(1200) }));
    order.push('evaluation done');
    expect(outcome.results.every((result) => result.evaluation.value === true)).toBe(true);
    expect(order).toEqual(['another callback', 'evaluation done']);
  });

  it('copies only the keys some flag or cohort reads, and those of nested and legacy cohorts are among them', async () => {
    const cohortCondition = (id: number) => everyone([{ key: 'id', value: id, type: 'cohort' }]);
    const cohorts = [
      { id: 7, isStatic: false, filters: { properties: { type: 'AND', values: [{ type: 'OR', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] }] } } },
      { id: 8, isStatic: false, filters: { groups: [{ properties: [{ key: 'country', value: 'FR', type: 'person' }] }] } },
      { id: 9, isStatic: false, filters: { properties: { type: 'AND', values: [{ key: 'id', value: 7, type: 'cohort' }] } } },
    ];
    const flags = [stored(1, 'in-7', cohortCondition(7)), stored(2, 'in-8', cohortCondition(8)), stored(3, 'in-9', cohortCondition(9)), stored(4, 'pro', everyone([plan('pro')]))];
    const withCohorts = buildSnapshot(1, '1', flags, cohorts, []);
    expect([...withCohorts.propertyKeys].sort()).toEqual(['country', 'plan']);
    const sut = new FlagEvaluationService(fakeContext({}).context);
    const outcome = await sut.evaluate(withCohorts, request('x', { plan: 'pro', country: 'FR', unread: 'x'.repeat(10) }));
    expect(Object.fromEntries(outcome.results.map((r) => [r.flag.key, r.evaluation.value]))).toEqual({ 'in-7': true, 'in-8': true, 'in-9': true, pro: true });
  });
});
