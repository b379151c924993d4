import { buildSnapshot } from '../../../src/modules/decide/flag-snapshot';
import { cohortPropertyGroup, definitionsDocument } from '../../../src/modules/decide/local-evaluation';

const stored = (id: number, key: string, filters: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  key,
  name: key,
  active: true,
  ensureExperienceContinuity: false,
  version: 1,
  filters,
  ...extra,
});
const dependsOn = (id: number, value: unknown = true) => ({ key: String(id), type: 'flag', value, operator: 'flag_evaluates_to' });

describe(definitionsDocument.name, () => {
  const snapshot = buildSnapshot(
    7,
    '3',
    [
      stored(4, 'd', { groups: [{ properties: [dependsOn(3), dependsOn(2, 'v')] }] }),
      stored(3, 'c', { groups: [{ properties: [dependsOn(1)] }] }),
      stored(2, 'b', { groups: [{ properties: [dependsOn(1, false)] }] }),
      stored(1, 'a', { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 10 }] }] }),
      stored(5, 'broken', { groups: [{ properties: [dependsOn(99)] }] }),
      stored(6, 'legacy', { properties: [{ key: 'x', value: 1 }] }),
    ],
    [
      { id: 10, isStatic: false, filters: { properties: { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 11 }] } } },
      { id: 11, isStatic: false, filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] } },
      { id: 12, isStatic: true, filters: {} },
      { id: 13, isStatic: false, filters: { properties: { type: 'AND', values: [] } } },
    ],
    [{ index: 0, name: 'organization' }],
  );
  const body = (sendCohorts: boolean) => JSON.parse(definitionsDocument(snapshot, sendCohorts).json);

  it('orders each dependency chain dependencies first, the dependency last', () => {
    const d = body(true).flags.find((f: { key: string }) => f.key === 'd');
    expect(d.filters.groups[0].properties).toEqual([
      { ...dependsOn(3), key: 'c', dependency_chain: ['a', 'c'] },
      { ...dependsOn(2, 'v'), key: 'b', dependency_chain: ['a', 'b'] },
    ]);
  });

  it('gives a missing dependency an empty chain, so SDKs ask the server', () => {
    const broken = body(true).flags.find((f: { key: string }) => f.key === 'broken');
    expect(broken.filters.groups[0].properties).toEqual([{ ...dependsOn(99), dependency_chain: [] }]);
  });

  it('serves legacy filters normalised', () => {
    const legacy = body(true).flags.find((f: { key: string }) => f.key === 'legacy');
    expect(legacy.filters).toEqual({ groups: [{ properties: [{ key: 'x', value: 1 }], rollout_percentage: null }], payloads: {} });
  });

  it('sends referenced dynamic cohorts with nested ones, as property groups; never static or unreferenced ones', () => {
    expect(body(true).cohorts).toEqual({
      '10': { type: 'AND', values: [{ key: 'id', type: 'cohort', value: 11 }] },
      '11': { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
    });
    expect(body(false).cohorts).toEqual({});
  });

  it('maps group type indexes as strings', () => {
    expect(body(true).group_type_mapping).toEqual({ '0': 'organization' });
  });

  it('gives equal documents equal ETags and different ones different ETags', () => {
    expect(definitionsDocument(snapshot, true).etag).toBe(definitionsDocument(snapshot, true).etag);
    expect(definitionsDocument(snapshot, true).etag).not.toBe(definitionsDocument(snapshot, false).etag);
  });
});

describe(cohortPropertyGroup.name, () => {
  it('keeps a property tree and turns legacy groups into an OR of ANDs', () => {
    const tree = { type: 'OR', values: [{ type: 'AND', values: [] }] };
    expect(cohortPropertyGroup({ id: 1, isStatic: false, filters: { properties: tree } })).toBe(tree);
    expect(cohortPropertyGroup({ id: 1, isStatic: false, filters: { groups: [{ properties: [{ key: 'a' }] }, { days: 3 }] } })).toEqual({
      type: 'OR',
      values: [
        { type: 'AND', values: [{ key: 'a' }] },
        { type: 'AND', values: [] },
      ],
    });
  });
});
