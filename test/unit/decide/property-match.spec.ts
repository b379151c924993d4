import fc from 'fast-check';
import { matchesProperty } from '../../../src/kernel/compiled-property';
import type { PropertyFilter } from '../../../src/kernel/flag-filters';
import { compareVersions, parseVersion } from '../../../src/kernel/semver';

const NOW = new Date('2026-06-15T12:00:00Z');
const match = (operator: string, value: unknown, properties: Record<string, unknown>) =>
  matchesProperty({ key: 'p', value, operator, type: 'person' }, properties, NOW);

describe(matchesProperty.name, () => {
  it.each<[string, unknown, unknown, boolean]>([
    // exact: stringified, case-insensitive, lists are membership, booleans by truthiness
    ['exact', 'Value', 'value', true],
    ['exact', 307, '307', true],
    ['exact', ['a', 'B'], 'b', true],
    ['exact', ['a', 'b'], 'c', false],
    ['exact', true, 'TRUE', true],
    ['exact', 'false', false, true],
    ['exact', ['true'], 'yes', false],
    ['is_not', 'a', 'A', false],
    ['is_not', 'a', 'b', true],
    ['is_not', 'a', null, true],
    ['icontains', 'ELL', 'hello', true],
    ['icontains', '3', 323, true],
    ['not_icontains', 'x', 'hello', true],
    ['regex', '^h.l', 'hello', true],
    ['regex', 'L+', 'hello', false],
    ['regex', '(unclosed', 'hello', false],
    ['not_regex', '(unclosed', 'hello', false],
    ['not_regex', 'z', 'hello', true],
    ['gt', '10', 11, true],
    ['gt', '10', '9', false],
    ['lt', '100', '30', true],
    ['gte', '5', 'five', false],
    ['lte', '5', 5, true],
    ['is_date_before', '2026-06-01', '2026-05-31T23:00:00Z', true],
    ['is_date_before', '-7d', '2026-06-05T00:00:00Z', true],
    ['is_date_after', '-7d', '2026-06-05T00:00:00Z', false],
    ['is_date_after', '-1m', '2026-05-20T00:00:00Z', true],
    ['is_date_after', '2026-01-01', 1767312000, true],
    ['is_date_after', '2026-01-01', 'not a date', false],
    ['is_date_exact', '2026-06-15T12:00:00Z', '2026-06-15T12:00:00.000Z', true],
    ['semver_gt', '1.2.3', 'v1.10.0', true],
    ['semver_eq', '1.2', '1.2.0', true],
    ['semver_lt', '1.0.0', '1.0.0-beta.1', true],
    ['semver_tilde', '1.2.3', '1.2.9', true],
    ['semver_tilde', '1.2.3', '1.3.0', false],
    ['semver_caret', '0.2.3', '0.2.9', true],
    ['semver_caret', '0.2.3', '0.3.0', false],
    ['semver_caret', '1.2.3', '1.9.0', true],
    ['semver_wildcard', '1.*', '1.99.1', true],
    ['semver_wildcard', '1.2.*', '1.3.0', false],
    ['semver_gte', '1.0.0', 'garbage', false],
    ['starts_with', 'HEL', 'hello', true],
    ['ends_with', 'LO', 'hello', true],
    ['not_starts_with', 'he', 'hello', false],
    ['icontains_multi', ['zz', 'ell'], 'hello', true],
    ['not_icontains_multi', ['zz', 'ell'], 'hello', false],
  ])('%s %j against %j → %s', (operator, value, actual, expected) => {
    expect(match(operator, value, { p: actual })).toBe(expected);
  });

  it('fails positive operators and satisfies negated ones when the key is missing', () => {
    for (const op of ['exact', 'icontains', 'regex', 'gt', 'is_date_before', 'semver_eq', 'starts_with', 'is_set']) expect(match(op, 'x', {})).toBe(false);
    for (const op of ['is_not', 'not_icontains', 'not_regex', 'not_starts_with', 'is_not_set']) expect(match(op, 'x', {})).toBe(true);
    expect(match('is_set', 'x', { p: null })).toBe(true);
  });

  it('never throws for any operator, value and property', () => {
    const operators = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'lt', 'is_date_before', 'is_date_exact', 'semver_caret', 'semver_wildcard', 'icontains_multi'];
    fc.assert(
      fc.property(fc.constantFrom(...operators), fc.jsonValue(), fc.jsonValue(), (operator, value, actual) => {
        expect(typeof match(operator, value, { p: actual })).toBe('boolean');
      }),
      { numRuns: 3000 },
    );
  });

  it('compares a filter without a value as posthog-node does, without throwing', () => {
    const operators = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'starts_with', 'icontains_multi', 'gt'];
    for (const op of operators) expect(typeof match(op, undefined, { p: 'x' })).toBe('boolean');
    expect(match('exact', undefined, { p: 'undefined' })).toBe(true);
    expect(match('exact', undefined, { p: 'x' })).toBe(false);
    expect(match('is_not', undefined, { p: 'x' })).toBe(true);
  });

  it('matches nothing when a stored operator is not a string', () => {
    for (const operator of [[], {}, 3, true]) {
      expect(matchesProperty({ key: 'p', value: 'x', operator } as unknown as PropertyFilter, { p: 'x' }, NOW)).toBe(false);
    }
  });

  it('answers a regex of any shape quickly (linear-time engine)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 2000 }), (pattern, text) => {
        const started = process.hrtime.bigint();
        match('regex', pattern, { p: text });
        return process.hrtime.bigint() - started < 1_000_000_000n;
      }),
      { numRuns: 500 },
    );
    // A monotonic clock: the wall clock of a virtual machine can jump while the test runs.
    const started = process.hrtime.bigint();
    expect(match('regex', '(a*)*b', { p: 'a'.repeat(50_000) })).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
  });
});

describe(parseVersion.name, () => {
  it('pads, strips a v prefix and orders pre-releases before releases', () => {
    expect(parseVersion('v1')).toEqual({ core: [1, 0, 0], pre: [] });
    expect(parseVersion('01.02.03')).toEqual({ core: [1, 2, 3], pre: [] });
    expect(compareVersions(parseVersion('1.0.0-alpha')!, parseVersion('1.0.0-alpha.1')!)).toBeLessThan(0);
    expect(compareVersions(parseVersion('1.0.0-2')!, parseVersion('1.0.0-10')!)).toBeLessThan(0);
    expect(parseVersion('not.a.version')).toBeNull();
  });
});
