import { changesBetween } from '../../../src/modules/activity-logs/activity-changes';
import { checkDependencies } from '../../../src/modules/feature-flags/flag-dependencies';
import { isSimpleFlag, renameEnrollmentKey, servedFilters, simpleRolloutPercentage } from '../../../src/kernel/flag-filters';
import { parseFlagListFilters } from '../../../src/modules/feature-flags/flag-list-filters';
import { canEditFlag, canManageFlagRoleAccess, FlagEditContext } from '../../../src/modules/roles/flag-permissions';
import { pythonRepr } from '../../../src/modules/feature-flags/python-repr';
import { columnsForUpdate, columnsForCreate } from '../../../src/modules/feature-flags/flag-changes';

describe(servedFilters.name, () => {
  it('serves a flag stored without filters as one open condition', () => {
    expect(servedFilters({})).toEqual({ groups: [{ properties: [], rollout_percentage: null }], payloads: {} });
  });

  it('keeps the properties and payloads of the legacy form and drops the rest', () => {
    const props = [{ key: 'a', value: 1, type: 'person' }];
    expect(servedFilters({ properties: props, payloads: { true: '1' }, multivariate: null })).toEqual({
      groups: [{ properties: props, rollout_percentage: null }],
      payloads: { true: '1' },
    });
  });

  it('serves filters with groups untouched', () => {
    const filters = { groups: [{ properties: [], rollout_percentage: 5 }], extra: 1 };
    expect(servedFilters(filters)).toBe(filters);
  });
});

describe(isSimpleFlag.name, () => {
  it.each([
    [{ groups: [{ rollout_percentage: 65 }] }, true, 65],
    [{ groups: [{ properties: [], rollout_percentage: null }] }, true, null],
    [{ groups: [{ properties: [{ key: 'a', type: 'person', value: 1 }], rollout_percentage: 65 }] }, false, null],
    [{ groups: [{ rollout_percentage: 65 }], aggregation_group_type_index: 0 }, false, null],
    [{ groups: [{ rollout_percentage: 65 }, { rollout_percentage: 10 }] }, false, null],
  ])('%j → simple %s, rollout %s', (filters, simple, rollout) => {
    expect(isSimpleFlag(filters)).toBe(simple);
    expect(simpleRolloutPercentage(filters)).toBe(rollout);
  });
});

describe(renameEnrollmentKey.name, () => {
  it('follows a key change in early-access enrollment conditions only', () => {
    const filters = { groups: [], super_groups: [{ properties: [{ key: '$feature_enrollment/old', value: ['true'] }, { key: 'other', value: 1 }] }] };
    expect(renameEnrollmentKey(filters, 'old', 'new').super_groups).toEqual([
      { properties: [{ key: '$feature_enrollment/new', value: ['true'] }, { key: 'other', value: 1 }] },
    ]);
  });
});

describe('flag columns', () => {
  it('applies PostHog defaults on create and resets a rollback when activated', () => {
    const columns = columnsForCreate({ key: 'k', active: true, performed_rollback: true });
    expect(columns).toMatchObject({ key: 'k', name: '', filters: {}, deleted: false, active: true, performedRollback: false, tags: [] });
  });

  it('ignores PATCHed filters without groups', () => {
    const current = columnsForCreate({ key: 'k', filters: { groups: [{ rollout_percentage: 1 }] } });
    expect(columnsForUpdate(current, { filters: { payloads: {} } }).filters).toBe(current.filters);
    expect(columnsForUpdate(current, { filters: { groups: [] } }).filters).toEqual({ groups: [] });
  });
});

describe(changesBetween.name, () => {
  it('reports created, changed and deleted fields in the given order', () => {
    const changes = changesBetween('FeatureFlag', { a: null, b: 1, c: { x: [1] }, d: 'same' }, { a: 'new', b: null, c: { x: [2] }, d: 'same' }, ['c', 'a', 'b', 'd']);
    expect(changes).toEqual([
      { type: 'FeatureFlag', action: 'changed', field: 'c', before: { x: [1] }, after: { x: [2] } },
      { type: 'FeatureFlag', action: 'created', field: 'a', before: null, after: 'new' },
      { type: 'FeatureFlag', action: 'deleted', field: 'b', before: 1, after: null },
    ]);
  });
});

describe('flag permissions', () => {
  const base: FlagEditContext = { userId: 1, membershipLevel: 1, organizationLevel: 37, roleLevel: 0, grantedFlagIds: new Set() };
  const othersFlag = { id: 10, createdById: 2 };

  it.each<[string, Partial<FlagEditContext>, boolean, boolean]>([
    ['member, organization default edit', {}, true, true],
    ['member, organization view-only, no roles', { organizationLevel: 21 }, false, false],
    ['member, view-only, edit role without access', { organizationLevel: 21, roleLevel: 37 }, true, true],
    ['member, view-only, view role with access to the flag', { organizationLevel: 21, roleLevel: 21, grantedFlagIds: new Set([10]) }, true, false],
    ['member, view-only, view role without access', { organizationLevel: 21, roleLevel: 21, grantedFlagIds: new Set([11]) }, false, false],
    ['member, view-only, access through a role but no role level', { organizationLevel: 21, grantedFlagIds: new Set([10]) }, true, false],
    ['admin, view-only', { organizationLevel: 21, membershipLevel: 8 }, true, true],
    ['owner, view-only', { organizationLevel: 21, membershipLevel: 15 }, true, true],
  ])('%s: can edit %s, can manage role access %s', (_name, overrides, edit, manage) => {
    const context = { ...base, ...overrides };
    expect(canEditFlag(context, othersFlag)).toBe(edit);
    expect(canManageFlagRoleAccess(context, othersFlag)).toBe(manage);
  });

  it('lets the creator edit and manage their own flag, but not a flag without creator', () => {
    const viewOnly = { ...base, organizationLevel: 21 };
    expect(canEditFlag(viewOnly, { id: 10, createdById: 1 })).toBe(true);
    expect(canManageFlagRoleAccess(viewOnly, { id: 10, createdById: 1 })).toBe(true);
    expect(canManageFlagRoleAccess(viewOnly, { id: 10, createdById: null })).toBe(false);
  });
});

describe(checkDependencies.name, () => {
  const dep = (id: number) => ({ groups: [{ properties: [{ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] });
  const live = [
    { id: 1, key: 'a', filters: dep(2) },
    { id: 2, key: 'b', filters: { groups: [] } },
  ];

  it('accepts dependencies on live flags', () => {
    expect(() => checkDependencies({ id: null, key: 'new', filters: dep(1) }, [1], live)).not.toThrow();
  });

  it('refuses missing flags, self references and cycles', () => {
    expect(() => checkDependencies({ id: null, key: 'new', filters: dep(9) }, [9], live)).toThrow('Flag dependency references a flag that does not exist: 9.');
    expect(() => checkDependencies({ id: 2, key: 'b', filters: dep(2) }, [2], live)).toThrow('A feature flag cannot depend on itself.');
    expect(() => checkDependencies({ id: 2, key: 'b', filters: dep(1) }, [1], live)).toThrow('Circular dependency detected: b → a → b');
  });
});

describe(parseFlagListFilters.name, () => {
  it('reads the list filters as PostHog does', () => {
    expect(parseFlagListFilters({ active: 'true', created_by_id: '4', search: 'beta', type: 'multivariant' })).toEqual({
      active: true,
      createdById: 4,
      search: 'beta',
      type: 'multivariant',
    });
    expect(parseFlagListFilters({ active: 'yes', created_by_id: 'x', type: 'weird' })).toEqual({ active: false });
  });
});

describe(pythonRepr.name, () => {
  it('prints values like Python str()', () => {
    expect(pythonRepr(['a', 1, true, null, { k: "it's" }])).toBe(`['a', 1, True, None, {'k': 'it\\'s'}]`);
    expect(pythonRepr('plain')).toBe('plain');
  });
});
