import { buildSnapshot, flagSet } from '../../../src/modules/decide/flag-snapshot';

const stored = (id: number, filters: Record<string, unknown>, continuity = false) => ({
  id,
  key: `f${id}`,
  name: '',
  active: true,
  ensureExperienceContinuity: continuity,
  version: 1,
  filters,
});
const person = (key: string) => ({ key, value: 1, type: 'person' });
const dependsOn = (id: number) => ({ key: String(id), type: 'flag', value: true, operator: 'flag_evaluates_to' });

describe(buildSnapshot.name, () => {
  const snapshot = buildSnapshot(
    1,
    '9',
    [
      stored(1, { groups: [{ properties: [person('plan'), { key: 'email', value: 'x' }] }], super_groups: [{ properties: [person('$feature_enrollment/f1')] }] }),
      stored(2, { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3 }] }] }, true),
      stored(3, { aggregation_group_type_index: 1, groups: [{ properties: [{ key: 'size', type: 'group', group_type_index: 1 }] }] }, true),
      stored(4, { groups: [{ properties: [dependsOn(1), dependsOn(2), dependsOn(3)] }] }),
      stored(5, { groups: [{ properties: [dependsOn(6)] }] }),
      stored(6, { groups: [{ properties: [dependsOn(5)] }] }),
    ],
    [],
    [{ index: 1, name: 'company' }],
  );
  const flag = (id: number) => snapshot.byId.get(id)!;

  it('collects the person keys a flag reads, super groups included', () => {
    expect([...flag(1).personKeys].sort()).toEqual(['$feature_enrollment/f1', 'email', 'plan']);
    expect(flag(1).usesCohorts).toBe(false);
  });

  it('marks cohort use and continuity; group flags read no person keys and never use continuity', () => {
    expect(flag(2)).toMatchObject({ usesCohorts: true, usesContinuity: true });
    expect(flag(3)).toMatchObject({ usesCohorts: false, usesContinuity: false });
    expect([...flag(3).personKeys]).toEqual([]);
    expect([...flag(3).groupIndexes]).toEqual([1]);
  });

  it("folds dependencies' needs into the dependent flag", () => {
    expect(flag(4)).toMatchObject({ usesCohorts: true, usesContinuity: true });
    expect([...flag(4).personKeys].sort()).toEqual(['$feature_enrollment/f1', 'email', 'plan']);
    expect([...flag(4).groupIndexes]).toEqual([1]);
  });

  it('survives a dependency cycle', () => {
    expect(flag(5).personKeys.size).toBe(0);
    expect(flag(6).personKeys.size).toBe(0);
  });

  it('indexes flags by id and key, and the group types by index', () => {
    expect(snapshot.byKey.get('f2')).toBe(flag(2));
    expect(snapshot.groupTypes.get(1)).toBe('company');
    expect(snapshot.version).toBe('9');
  });

  it('sums up the needs of the active flags once', () => {
    const withInactive = buildSnapshot(
      1,
      '1',
      [
        stored(1, { groups: [{ properties: [person('plan')] }] }),
        { ...stored(2, { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3 }] }] }, true), active: false },
        stored(3, { aggregation_group_type_index: 1, groups: [] }),
        stored(4, { groups: [{ properties: [person('email'), person('plan')] }] }, true),
      ],
      [],
      [{ index: 1, name: 'company' }],
    );
    const active = withInactive.activeFlags;
    expect(active.flags.map((f) => f.id)).toEqual([1, 3, 4]);
    expect(active.personKeys.sort()).toEqual(['email', 'plan']);
    expect(active).toMatchObject({ usesCohorts: false, groupIndexes: [1], continuityKeys: ['f4'] });
    expect(flagSet(withInactive.flags)).toMatchObject({ usesCohorts: true, continuityKeys: ['f2', 'f4'] });
  });
});
