import fc from 'fast-check';
import { compileProperty, matchesProperty } from '../../../src/kernel/compiled-property';
import type { PropertyFilter } from '../../../src/kernel/flag-filters';

const OPERATORS = [
  'exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'starts_with', 'not_starts_with', 'ends_with',
  'not_ends_with', 'icontains_multi', 'not_icontains_multi', 'gt', 'gte', 'lt', 'lte', 'is_set', 'is_not_set',
  'is_date_before', 'is_date_after', 'is_date_exact', 'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt',
  'semver_lte', 'semver_tilde', 'semver_caret', 'semver_wildcard', 'semver_other', 'in', 'flag_evaluates_to',
  'toString', 'constructor', '__proto__', 'hasOwnProperty',
];

/** Values the operators treat specially, beside arbitrary JSON. */
const value = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom('true', 'FALSE', true, false, '1.2.3', 'v2', '2.x', '1.2.*', '-30d', '-2m', '-1y', '2024-06-01', '2024-06-01T10:00:00Z', '42', ' 7 ', '^a.*z$', '(', 'Ab', 'ZOË', 1718000000),
  fc.array(fc.constantFrom('a', 'B', 'true', false, '2.0.0', 3), { maxLength: 3 }),
);

function outcome(run: () => boolean): boolean | string {
  try {
    return run();
  } catch (error) {
    return `throws ${(error as Error).constructor.name}`;
  }
}

describe(compileProperty.name, () => {
  // The fault this catches: compiled state leaking from one call into the next (a remembered answer, a regex with a
  // moving lastIndex, a date resolved once): the reused test then disagrees with one compiled for the call.
  it('never throws, and a test compiled once answers every later call as one compiled for that call', () => {
    const now = new Date(Date.UTC(2026, 2, 31, 12));
    const input = fc.tuple(fc.option(value, { nil: undefined }), fc.boolean());
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...OPERATORS), fc.jsonValue()), value, fc.array(input, { minLength: 1, maxLength: 4 }), (operator, filterValue, inputs) => {
        const filter = { key: 'p', value: filterValue, operator, type: 'person' } as PropertyFilter;
        // Compiled as a snapshot compiles it, then reused for several persons, as requests reuse it.
        const kept = compileProperty(filter);
        for (const [actual, present] of inputs) {
          const properties: Record<string, unknown> = present ? { p: actual } : { other: actual };
          const answer = outcome(() => kept(properties, now));
          expect(typeof answer).toBe('boolean');
          expect(answer).toEqual(outcome(() => matchesProperty(filter, properties, now)));
        }
      }),
      // 5,000 cases reach every listed operator about a hundred times; more only slows the suite down.
      { numRuns: 5_000 },
    );
  });

  it('matches nothing with operators outside the current server column, even names of Object.prototype', () => {
    for (const operator of ['in', 'flag_evaluates_to', 'toString', 'constructor', '__proto__', 'hasOwnProperty', 'semver_other']) {
      const filter = { key: 'p', value: 'x', operator, type: 'person' } as PropertyFilter;
      expect([matchesProperty(filter, { p: 'x' }, new Date()), matchesProperty(filter, {}, new Date())]).toEqual([false, false]);
    }
  });

  it('moves relative dates with the evaluation time', () => {
    const test = compileProperty({ key: 'at', operator: 'is_date_after', value: '-7d' });
    const properties = { at: '2026-03-01T00:00:00Z' };
    expect(test(properties, new Date('2026-03-05T00:00:00Z'))).toBe(true);
    expect(test(properties, new Date('2026-03-20T00:00:00Z'))).toBe(false);
  });
});
