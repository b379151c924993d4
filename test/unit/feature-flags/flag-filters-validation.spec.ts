import fc from 'fast-check';
import { ApiError } from '../../../src/common/errors/api-error';
import { validateFlagFilters } from '../../../src/modules/feature-flags/flag-filters-validation';

function errorOf(filters: Record<string, unknown>): { code: string; detail: string; attr: string | null } {
  try {
    validateFlagFilters(filters);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const { code, detail, attr } = (error as ApiError).toBody();
    return { code, detail, attr };
  }
  throw new Error(`expected ${JSON.stringify(filters)} to be refused`);
}

const person = (key: string, value: unknown, operator?: string) => ({ key, value, operator, type: 'person' });
const groups = (...properties: unknown[]) => ({ groups: [{ properties, rollout_percentage: 50 }] });
const variants = (...pairs: Array<[string, number]>) => ({ variants: pairs.map(([key, rollout_percentage]) => ({ key, rollout_percentage })) });

describe(validateFlagFilters.name, () => {
  it.each([
    ['no filters at all (served as one open condition)', {}],
    ['legacy filters with properties only', { properties: [person('email', 'a@b.c')] }],
    ['a percentage rollout', { groups: [{ properties: [], rollout_percentage: 65 }] }],
    ['a multivariate flag with overrides and payloads', {
      groups: [{ properties: [], rollout_percentage: 100, variant: 'b' }],
      multivariate: variants(['a', 50], ['b', 50]),
      payloads: { a: '{"x": 1}', b: { nested: true } },
    }],
    ['a group flag', { aggregation_group_type_index: 1, groups: [{ properties: [{ key: 'industry', value: 'x', type: 'group', group_type_index: 1 }] }] }],
    ['relative and absolute dates', groups(person('signup', '-30d', 'is_date_before'), person('seen', '2024-01-02', 'is_date_after'))],
    ['boolean payload under "true"', { groups: [{ properties: [] }], payloads: { true: '[1, 2]' } }],
  ])('accepts %s', (_name, filters) => {
    expect(() => validateFlagFilters(filters)).not.toThrow();
  });

  it('collects cohort and flag references', () => {
    const refs = validateFlagFilters(groups({ key: 'id', type: 'cohort', value: 7 }, { key: '12', type: 'flag', operator: 'flag_evaluates_to', value: true }));
    expect(refs).toEqual({ cohortIds: [7], flagIds: [12] });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['event properties on a person flag', groups({ key: 'x', value: 1, type: 'event' }), 'invalid_input', 'Filters are not valid (can only use person, cohort, and flag properties)'],
    ['a property without type', groups({ key: 'x', value: 1 }), 'invalid_input', 'Filters are not valid (can only use person, cohort, and flag properties)'],
    ['person properties on a group flag', { aggregation_group_type_index: 0, groups: [{ properties: [person('a', 'b')] }] }, 'invalid_input', 'Filters are not valid (can only use group properties)'],
    ['another group type on a group flag', { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'a', value: 'b', type: 'group', group_type_index: 1 }] }] }, 'invalid_input', 'Filters are not valid (can only use group properties)'],
    ['an unknown variant override', { groups: [{ variant: 'zzz' }], multivariate: variants(['a', 100]) }, 'invalid_input', 'Filters are not valid (variant override does not exist)'],
    ['variants summing to 90', { groups: [{}], multivariate: variants(['a', 40], ['b', 50]) }, 'invalid_input', 'Invalid variant definitions: Variant rollout percentages must sum to 100.'],
    ['a variant over 100 %', { groups: [{}], multivariate: variants(['a', 150], ['b', -50]) }, 'invalid_input', 'Invalid variant definitions: rollout percentages must be from 0 to 100.'],
    ['a condition rollout of 101', { groups: [{ rollout_percentage: 101 }] }, 'invalid_input', 'Invalid rollout percentage: must be a number from 0 to 100.'],
    ['a condition rollout given as a string', { groups: [{ rollout_percentage: '50' }] }, 'invalid_input', 'Invalid rollout percentage: must be a number from 0 to 100.'],
    ['payloads that are a list', { groups: [{}], payloads: ['x'] }, 'invalid_input', 'Payloads must be passed as a dictionary'],
    ['a payload that is not JSON', { groups: [{}], payloads: { true: '{oops' } }, 'invalid_input', 'Payload value is not valid JSON'],
    ['payload keys that are not variants', { groups: [{}], multivariate: variants(['a', 100]), payloads: { b: '1' } }, 'invalid_input', 'Payload keys must match a variant key for multivariate flags'],
    ['a boolean flag payload under another key', { groups: [{}], payloads: { yes: '1' } }, 'invalid_input', "Payload keys must be 'true' for boolean flags"],
    ['gt with a number', groups(person('age', 5, 'gt')), 'invalid_value', 'Invalid value for operator gt: 5. This operator takes one value: send it as a string, e.g. "5".'],
    ['regex with a list', groups(person('email', ['a', 'b'], 'regex')), 'invalid_value', 'Invalid value for operator regex: [\'a\', \'b\']. This operator takes one value: send it as a string.'],
    ['a date that does not parse', groups(person('signup', 'someday', 'is_date_before')), 'invalid_date', 'Invalid date value: someday'],
    ['an unknown operator', groups(person('a', 'b', 'is_unknown')), 'invalid_operator', 'Invalid operator: is_unknown'],
    ['in outside cohorts', groups(person('a', ['b'], 'in')), 'invalid_operator', 'Operator in is only valid for cohort properties.'],
    ['a cohort id that is not a number', groups({ key: 'id', type: 'cohort', value: 'abc' }), 'cohort_does_not_exist', 'Cohort with id abc does not exist'],
    ['a flag dependency with another operator', groups({ key: '3', type: 'flag', operator: 'exact', value: true }), 'invalid_operator', 'Flag dependencies must use the operator flag_evaluates_to, not exact.'],
    ['groups that are not a list', { groups: {} }, 'invalid_input', 'Filters are not valid (groups must be a list)'],
    ['an aggregation index of 5', { aggregation_group_type_index: 5, groups: [] }, 'invalid_input', 'Filters are not valid (aggregation_group_type_index must be an integer from 0 to 4)'],
    ['a property without key', groups({ value: 1, type: 'person' }), 'invalid_input', 'Filters are not valid (every property filter needs a key)'],
    ['duplicate variant keys', { groups: [{}], multivariate: variants(['a', 50], ['a', 50]) }, 'invalid_input', 'Invalid variant definitions: variant keys must be unique.'],
  ])('refuses %s', (_name, filters, code, detail) => {
    expect(errorOf(filters)).toEqual({ code, detail, attr: 'filters' });
  });

  it('refuses more than 1000 values in one property', () => {
    const values = Array.from({ length: 1001 }, (_, i) => String(i));
    expect(errorOf(groups(person('plan', values, 'exact'))).detail).toBe(
      'Property group expressions of type plan cannot contain more than 1000 values.',
    );
  });

  it('never throws anything but an ApiError, whatever the JSON', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('groups', 'multivariate', 'payloads', 'aggregation_group_type_index', 'properties'), fc.jsonValue()), (filters) => {
        try {
          validateFlagFilters(filters);
        } catch (error) {
          return error instanceof ApiError && error.status === 400;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});
