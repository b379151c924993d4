import fc from 'fast-check';
import { SCOPE_OBJECTS, Scope, isValidScope, scopeSatisfied } from '../../src/common/auth/scopes';

const objectArb = fc.constantFrom(...SCOPE_OBJECTS);
const actionArb = fc.constantFrom('read' as const, 'write' as const);
const scopeArb = fc.tuple(objectArb, actionArb).map(([object, action]): Scope => `${object}:${action}`);

describe(isValidScope.name, () => {
  it('accepts "*"', () => {
    expect(isValidScope('*')).toBe(true);
  });

  it('accepts read and write for every known object', () => {
    fc.assert(
      fc.property(objectArb, actionArb, (object, action) => {
        expect(isValidScope(`${object}:${action}`)).toBe(true);
      }),
    );
  });

  it.each([
    ['unknown object', 'widget:read'],
    ['unknown action', 'insight:delete'],
    ['missing action', 'insight'],
    ['missing object', ':read'],
    ['upper case', 'Insight:read'],
    ['upper-case action', 'insight:READ'],
    ['leading space', ' insight:read'],
    ['trailing space', 'insight:read '],
    ['object wildcard', 'insight:*'],
    ['extra segment', 'insight:read:write'],
    ['empty string', ''],
    ['double star', '**'],
  ])('rejects %s (%j)', (_label, scope) => {
    expect(isValidScope(scope)).toBe(false);
  });

  it('rejects any string that is neither "*" nor <known object>:<read|write>', () => {
    const valid = new Set<string>(['*', ...SCOPE_OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`])]);
    fc.assert(
      fc.property(fc.string(), (scope) => {
        expect(isValidScope(scope)).toBe(valid.has(scope));
      }),
    );
  });
});

describe(scopeSatisfied.name, () => {
  it('lets a legacy key with null scopes through', () => {
    expect(scopeSatisfied(null, 'insight:write')).toBe(true);
  });

  it('lets a legacy key with empty scopes through', () => {
    expect(scopeSatisfied([], 'insight:write')).toBe(true);
  });

  it('treats null and empty scopes as satisfying every scope', () => {
    fc.assert(
      fc.property(scopeArb, (required) => {
        expect(scopeSatisfied(null, required)).toBe(true);
        expect(scopeSatisfied([], required)).toBe(true);
      }),
    );
  });

  it('lets "*" grant every scope', () => {
    fc.assert(
      fc.property(scopeArb, (required) => {
        expect(scopeSatisfied(['*'], required)).toBe(true);
      }),
    );
  });

  it('lets "*" grant every scope even next to unrelated scopes', () => {
    expect(scopeSatisfied(['action:read', '*'], 'user:write')).toBe(true);
  });

  it('grants an exactly matching scope', () => {
    expect(scopeSatisfied(['insight:read'], 'insight:read')).toBe(true);
  });

  it('lets write imply read', () => {
    expect(scopeSatisfied(['insight:write'], 'insight:read')).toBe(true);
  });

  it('lets write imply read for every object', () => {
    fc.assert(
      fc.property(objectArb, (object) => {
        expect(scopeSatisfied([`${object}:write`], `${object}:read`)).toBe(true);
      }),
    );
  });

  it('does not let read imply write', () => {
    expect(scopeSatisfied(['insight:read'], 'insight:write')).toBe(false);
  });

  it('does not let read imply write for any object', () => {
    fc.assert(
      fc.property(objectArb, (object) => {
        expect(scopeSatisfied([`${object}:read`], `${object}:write`)).toBe(false);
      }),
    );
  });

  it('does not let a scope of another object match', () => {
    expect(scopeSatisfied(['dashboard:write', 'cohort:read'], 'insight:read')).toBe(false);
  });

  it('does not let an object whose name is a prefix of another match', () => {
    expect(scopeSatisfied(['organization:write'], 'organization_member:read')).toBe(false);
  });

  it('never lets scopes of other objects satisfy a requirement', () => {
    fc.assert(
      fc.property(
        scopeArb,
        fc.array(scopeArb, { minLength: 1, maxLength: 8 }),
        (required, candidates) => {
          const [object] = required.split(':');
          const others = candidates.filter((scope) => !scope.startsWith(`${object}:`));
          fc.pre(others.length > 0);
          expect(scopeSatisfied(others, required)).toBe(false);
        },
      ),
    );
  });

  it('never withdraws a permission when more scopes are granted', () => {
    const grantArb = fc.array(fc.oneof(scopeArb, fc.constant('*')), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(grantArb, grantArb, scopeArb, (granted, extra, required) => {
        fc.pre(scopeSatisfied(granted, required));
        expect(scopeSatisfied([...granted, ...extra], required)).toBe(true);
      }),
    );
  });
});
