import { ApiError } from '../../../src/common/errors/api-error';
import { parseBlastRadiusRequest, parseGroupsParam, requireDistinctId } from '../../../src/modules/decide/flag-insights-requests';

const errorOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as ApiError).toBody();
  }
  return null;
};

describe(parseGroupsParam.name, () => {
  it('reads a JSON object, stringifying numeric keys; absent or empty is {}', () => {
    expect(parseGroupsParam('{"organization":"7","team":3}')).toEqual({ organization: '7', team: '3' });
    expect(parseGroupsParam(undefined)).toEqual({});
    expect(parseGroupsParam('')).toEqual({});
  });

  it.each(['[1]', 'not json', '{"a":{"b":1}}', '"x"'])('refuses %s', (raw) => {
    expect(errorOf(() => parseGroupsParam(raw))).toMatchObject({ code: 'invalid_input', attr: 'groups' });
  });
});

describe(requireDistinctId.name, () => {
  it("answers PostHog's message when it is missing or empty", () => {
    for (const raw of [undefined, '', ['a']]) {
      expect(errorOf(() => requireDistinctId(raw))).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'distinct_id is required', attr: null });
    }
    expect(requireDistinctId('x')).toBe('x');
  });
});

describe(parseBlastRadiusRequest.name, () => {
  it('reads the condition properties and the group type index; the rollout is ignored', () => {
    expect(parseBlastRadiusRequest({ condition: { properties: [{ key: 'a', value: 1 }], rollout_percentage: 5 } })).toEqual({
      properties: [{ key: 'a', value: 1 }],
      groupTypeIndex: null,
    });
    expect(parseBlastRadiusRequest({ condition: {}, group_type_index: 2 })).toEqual({ properties: [], groupTypeIndex: 2 });
  });

  it.each([
    [{}, 'Missing condition for which to get blast radius'],
    [null, 'Missing condition for which to get blast radius'],
    [{ condition: 3 }, 'condition must be an object.'],
    [{ condition: { properties: [1] } }, 'condition.properties must be a list of property filters.'],
    [{ condition: {}, group_type_index: 5 }, 'group_type_index must be an integer between 0 and 4.'],
    [{ condition: { properties: [{ key: 'a', group_type_index: 1 }] }, group_type_index: 0 }, 'Invalid group type index for feature flag condition.'],
  ])('refuses %j', (body, detail) => {
    expect(errorOf(() => parseBlastRadiusRequest(body))).toMatchObject({ type: 'validation_error', code: 'invalid_input', detail });
  });
});
