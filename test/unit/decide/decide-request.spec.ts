import fc from 'fast-check';
import { ApiError } from '../../../src/common/errors/api-error';
import { parseDecideRequest } from '../../../src/modules/decide/decide-request';

function errorOf(body: unknown): unknown {
  try {
    parseDecideRequest(body);
  } catch (error) {
    return error instanceof ApiError ? { status: error.status, ...error.toBody() } : error;
  }
  return null;
}

describe(parseDecideRequest.name, () => {
  it('reads the browser body with every field it sends', () => {
    expect(
      parseDecideRequest({
        token: 'phc_x',
        distinct_id: 'user',
        $anon_distinct_id: 'anon',
        groups: { company: 'acme', team: 7 },
        person_properties: { plan: 'pro' },
        group_properties: { company: { size: 3 } },
        flag_keys: ['a'],
        disable_flags: true,
      }),
    ).toEqual({
      distinctId: 'user',
      anonDistinctId: 'anon',
      groups: { company: 'acme', team: '7' },
      personProperties: { plan: 'pro' },
      groupProperties: { company: { size: 3 } },
      flagKeys: ['a'],
      disableFlags: true,
    });
  });

  it('accepts the aliases of the server SDKs and older clients', () => {
    expect(parseDecideRequest({ $distinct_id: 'd', $groups: { c: 'k' }, $properties: { a: 1 }, $group_properties: { c: { b: 2 } }, flag_keys_to_evaluate: ['f'], anon_distinct_id: 'x' })).toEqual({
      distinctId: 'd',
      anonDistinctId: 'x',
      groups: { c: 'k' },
      personProperties: { a: 1 },
      groupProperties: { c: { b: 2 } },
      flagKeys: ['f'],
      disableFlags: false,
    });
  });

  it('stringifies numeric distinct ids, keeps an empty one and truncates past 200 characters', () => {
    expect(parseDecideRequest({ distinct_id: 42 }).distinctId).toBe('42');
    expect(parseDecideRequest({ distinct_id: '' }).distinctId).toBe('');
    expect(parseDecideRequest({ distinct_id: 'x'.repeat(250) }).distinctId).toHaveLength(200);
  });

  it('treats null fields as absent', () => {
    expect(parseDecideRequest({ distinct_id: 'd', groups: null, person_properties: null, flag_keys_to_evaluate: null })).toMatchObject({
      groups: {},
      personProperties: {},
      flagKeys: null,
    });
  });

  it('drops group keys that are neither strings nor numbers, as PostHog reads them as no group', () => {
    const body = { distinct_id: 'd', groups: { a: null, b: true, c: ['x'], d: { k: 1 }, e: 'kept', f: 3 } };
    expect(parseDecideRequest(body).groups).toEqual({ e: 'kept', f: '3' });
  });

  it.each([
    [{}, 'missing_distinct_id', 'distinct_id'],
    [{ distinct_id: true }, 'missing_distinct_id', 'distinct_id'],
    [{ distinct_id: 'd', groups: [] }, 'malformed_data', 'groups'],
    [{ distinct_id: 'd', person_properties: 'x' }, 'malformed_data', 'person_properties'],
    [{ distinct_id: 'd', group_properties: { a: [] } }, 'malformed_data', 'group_properties'],
    [{ distinct_id: 'd', flag_keys: [1] }, 'malformed_data', 'flag_keys_to_evaluate'],
  ])('refuses %j with 400 %s', (body, code, attr) => {
    expect(errorOf(body)).toMatchObject({ status: 400, type: 'validation_error', code, attr });
  });

  it('answers any JSON with a request or a 400, never anything else', () => {
    // Bodies shaped as SDKs send them, each field sometimes of a wrong kind, so inputs reach every field's check.
    const body = fc.record(
      {
        token: fc.oneof(fc.constant('phc_x'), fc.jsonValue()),
        distinct_id: fc.oneof(fc.string({ minLength: 1 }), fc.integer(), fc.jsonValue()),
        $anon_distinct_id: fc.oneof(fc.string(), fc.jsonValue()),
        groups: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer())), fc.jsonValue()),
        person_properties: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
        group_properties: fc.oneof(fc.dictionary(fc.string(), fc.dictionary(fc.string(), fc.jsonValue())), fc.jsonValue()),
        flag_keys: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
        disable_flags: fc.oneof(fc.boolean(), fc.jsonValue()),
      },
      { requiredKeys: ['distinct_id'] },
    );
    const outcomes = new Map<string, number>();
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: body }, { weight: 1, arbitrary: fc.jsonValue() }), (input) => {
        const error = errorOf(input) as { status?: number; attr?: string } | null;
        const outcome = error === null ? 'accepted' : `${error.status} ${error.attr}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        return error === null || error.status === 400;
      }),
      { numRuns: 2000 },
    );
    expect(outcomes.get('accepted') ?? 0).toBeGreaterThan(100);
    // Refused on several different fields, not only on the first one checked.
    expect([...outcomes.keys()].filter((outcome) => outcome.startsWith('400')).length).toBeGreaterThan(3);
  });
});
