import fc from 'fast-check';
import { authenticationFields, findPersonalApiKey, findProjectIdParam, findProjectToken } from '../../src/common/auth/key-sources';

// Keys as they appear in real requests: no whitespace, never empty.
const keyArb = fc.stringMatching(/^[A-Za-z0-9_]{1,60}$/);

describe(findPersonalApiKey.name, () => {
  describe('Authorization header', () => {
    it('takes the key from a Bearer header', () => {
      expect(findPersonalApiKey('Bearer phx_abc', undefined, undefined)).toEqual({
        key: 'phx_abc',
        source: 'Authorization header',
      });
    });

    it('matches the "Bearer" keyword case-insensitively', () => {
      expect(findPersonalApiKey('bEaReR phx_abc', undefined, undefined)).toEqual({
        key: 'phx_abc',
        source: 'Authorization header',
      });
    });

    it('tolerates several spaces after "Bearer" and around the header', () => {
      expect(findPersonalApiKey('  Bearer    phx_abc   ', undefined, undefined)).toEqual({
        key: 'phx_abc',
        source: 'Authorization header',
      });
    });

    it('accepts a tab as the separator', () => {
      expect(findPersonalApiKey('Bearer\tphx_abc', undefined, undefined)).toEqual({
        key: 'phx_abc',
        source: 'Authorization header',
      });
    });

    it('returns any key with surrounding spaces removed, for every key and spacing', () => {
      fc.assert(
        fc.property(keyArb, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 5 }), (key, gap, tail) => {
          const header = `Bearer${' '.repeat(gap)}${key}${' '.repeat(tail)}`;
          expect(findPersonalApiKey(header, undefined, undefined)).toEqual({ key, source: 'Authorization header' });
        }),
      );
    });

    it('wins over body and query keys', () => {
      expect(
        findPersonalApiKey('Bearer phx_header', { personal_api_key: 'phx_body' }, { personal_api_key: 'phx_query' }),
      ).toEqual({ key: 'phx_header', source: 'Authorization header' });
    });

    it('ignores a non-Bearer scheme and falls back to the body', () => {
      expect(findPersonalApiKey('Basic dXNlcjpwYXNz', { personal_api_key: 'phx_body' }, undefined)).toEqual({
        key: 'phx_body',
        source: 'body',
      });
    });

    it('ignores a non-Bearer scheme when nothing else carries a key', () => {
      expect(findPersonalApiKey('Token phx_abc', undefined, undefined)).toBeNull();
    });

    it('ignores "Bearer" glued to the key without a separator', () => {
      expect(findPersonalApiKey('Bearerphx_abc', undefined, undefined)).toBeNull();
    });

    it('ignores a Bearer header with no key after it', () => {
      expect(findPersonalApiKey('Bearer    ', { personal_api_key: 'phx_body' }, undefined)).toEqual({
        key: 'phx_body',
        source: 'body',
      });
    });

    it('ignores an empty header', () => {
      expect(findPersonalApiKey('', undefined, { personal_api_key: 'phx_query' })).toEqual({
        key: 'phx_query',
        source: 'query string',
      });
    });

    it('ignores a whitespace-only header', () => {
      expect(findPersonalApiKey('   ', undefined, undefined)).toBeNull();
    });
  });

  describe('body', () => {
    it('takes personal_api_key from the body', () => {
      expect(findPersonalApiKey(undefined, { personal_api_key: 'phx_body' }, undefined)).toEqual({
        key: 'phx_body',
        source: 'body',
      });
    });

    it('trims the body key', () => {
      expect(findPersonalApiKey(undefined, { personal_api_key: '  phx_body\n' }, undefined)).toEqual({
        key: 'phx_body',
        source: 'body',
      });
    });

    it('wins over the query key', () => {
      expect(findPersonalApiKey(undefined, { personal_api_key: 'phx_body' }, { personal_api_key: 'phx_query' })).toEqual({
        key: 'phx_body',
        source: 'body',
      });
    });

    it('falls back to the query when the body key is empty', () => {
      expect(findPersonalApiKey(undefined, { personal_api_key: '' }, { personal_api_key: 'phx_query' })).toEqual({
        key: 'phx_query',
        source: 'query string',
      });
    });

    it('falls back to the query when the body key is whitespace', () => {
      expect(findPersonalApiKey(undefined, { personal_api_key: ' \t ' }, { personal_api_key: 'phx_query' })).toEqual({
        key: 'phx_query',
        source: 'query string',
      });
    });

    it('ignores a body key that is not a string', () => {
      expect(findPersonalApiKey(undefined, { personal_api_key: 12345 }, { personal_api_key: 'phx_query' })).toEqual({
        key: 'phx_query',
        source: 'query string',
      });
    });

    it('ignores an array body', () => {
      expect(findPersonalApiKey(undefined, [{ personal_api_key: 'phx_body' }], undefined)).toBeNull();
    });

    it('ignores a string body', () => {
      expect(findPersonalApiKey(undefined, 'personal_api_key=phx_body', undefined)).toBeNull();
    });
  });

  describe('query string', () => {
    it('takes personal_api_key from the query', () => {
      expect(findPersonalApiKey(undefined, undefined, { personal_api_key: 'phx_query' })).toEqual({
        key: 'phx_query',
        source: 'query string',
      });
    });

    it('trims the query key', () => {
      expect(findPersonalApiKey(undefined, null, { personal_api_key: ' phx_query ' })).toEqual({
        key: 'phx_query',
        source: 'query string',
      });
    });

    it('ignores a repeated query parameter (array value)', () => {
      expect(findPersonalApiKey(undefined, undefined, { personal_api_key: ['phx_a', 'phx_b'] })).toBeNull();
    });
  });

  it('returns null when no source carries a key', () => {
    expect(findPersonalApiKey(undefined, {}, {})).toBeNull();
  });

  it('returns null for null body and query', () => {
    expect(findPersonalApiKey(undefined, null, null)).toBeNull();
  });
});

describe(findProjectToken.name, () => {
  describe('object bodies', () => {
    it('reads api_key', () => {
      expect(findProjectToken({ api_key: 'phc_a' }, undefined)).toBe('phc_a');
    });

    it('reads token', () => {
      expect(findProjectToken({ token: 'phc_t' }, undefined)).toBe('phc_t');
    });

    it('reads $token', () => {
      expect(findProjectToken({ $token: 'phc_d' }, undefined)).toBe('phc_d');
    });

    it('reads properties.token', () => {
      expect(findProjectToken({ event: 'x', properties: { token: 'phc_p' } }, undefined)).toBe('phc_p');
    });

    it('prefers api_key over token, $token and properties.token', () => {
      expect(
        findProjectToken({ api_key: 'phc_a', token: 'phc_t', $token: 'phc_d', properties: { token: 'phc_p' } }, undefined),
      ).toBe('phc_a');
    });

    it('prefers token over $token and properties.token', () => {
      expect(findProjectToken({ token: 'phc_t', $token: 'phc_d', properties: { token: 'phc_p' } }, undefined)).toBe('phc_t');
    });

    it('prefers $token over properties.token', () => {
      expect(findProjectToken({ $token: 'phc_d', properties: { token: 'phc_p' } }, undefined)).toBe('phc_d');
    });

    it('trims the token', () => {
      expect(findProjectToken({ api_key: '  phc_a \n' }, undefined)).toBe('phc_a');
    });

    it('skips empty and whitespace-only candidates', () => {
      expect(findProjectToken({ api_key: '', token: '   ', $token: 'phc_d' }, undefined)).toBe('phc_d');
    });

    it('skips non-string candidates', () => {
      expect(findProjectToken({ api_key: 42, token: { nested: 'phc_x' }, $token: null, properties: { token: 'phc_p' } }, undefined)).toBe(
        'phc_p',
      );
    });

    it('ignores properties that are not an object', () => {
      expect(findProjectToken({ properties: 'token' }, { token: 'phc_q' })).toBe('phc_q');
    });

    it('ignores properties that are an array', () => {
      expect(findProjectToken({ properties: ['phc_x'] }, undefined)).toBeNull();
    });
  });

  describe('batch bodies', () => {
    it('reads the token of the first batch event that has one', () => {
      expect(findProjectToken({ batch: [{ event: 'a' }, { event: 'b', api_key: 'phc_b' }, { api_key: 'phc_c' }] }, undefined)).toBe(
        'phc_b',
      );
    });

    it('reads properties.token inside a batch event', () => {
      expect(findProjectToken({ batch: [{ event: 'a', properties: { token: 'phc_p' } }] }, undefined)).toBe('phc_p');
    });

    it('prefers a top-level api_key over batch events', () => {
      expect(findProjectToken({ api_key: 'phc_top', batch: [{ api_key: 'phc_event' }] }, undefined)).toBe('phc_top');
    });

    it('skips batch items that are not objects', () => {
      expect(findProjectToken({ batch: [null, 'phc_str', 7, ['phc_arr'], { token: 'phc_ok' }] }, undefined)).toBe('phc_ok');
    });

    it('ignores a batch that is not an array', () => {
      expect(findProjectToken({ batch: { api_key: 'phc_b' } }, undefined)).toBeNull();
    });

    it('prefers any batch event token over the query', () => {
      expect(findProjectToken({ batch: [{}, { $token: 'phc_b' }] }, { token: 'phc_q' })).toBe('phc_b');
    });
  });

  describe('array bodies', () => {
    it('reads the token of the first event that has one', () => {
      expect(findProjectToken([{ event: 'a' }, { token: 'phc_2' }, { token: 'phc_3' }], undefined)).toBe('phc_2');
    });

    it('checks every field of an event before moving to the next event', () => {
      expect(findProjectToken([{ properties: { token: 'phc_1p' } }, { api_key: 'phc_2a' }], undefined)).toBe('phc_1p');
    });

    it('falls back to the query when no event has a token', () => {
      expect(findProjectToken([{ event: 'a' }, { token: ' ' }], { api_key: 'phc_q' })).toBe('phc_q');
    });

    it('returns null for an empty array and no query', () => {
      expect(findProjectToken([], undefined)).toBeNull();
    });
  });

  describe('query string', () => {
    it('reads token from the query', () => {
      expect(findProjectToken(undefined, { token: 'phc_q' })).toBe('phc_q');
    });

    it('reads api_key from the query', () => {
      expect(findProjectToken(undefined, { api_key: 'phc_q' })).toBe('phc_q');
    });

    it('prefers query token over query api_key', () => {
      expect(findProjectToken(undefined, { token: 'phc_t', api_key: 'phc_a' })).toBe('phc_t');
    });

    it('trims the query token', () => {
      expect(findProjectToken(undefined, { token: '\tphc_q ' })).toBe('phc_q');
    });

    it('is used only after every body candidate', () => {
      expect(findProjectToken({ properties: { token: 'phc_body' } }, { token: 'phc_q', api_key: 'phc_qa' })).toBe('phc_body');
    });
  });

  it('returns null for a string body and no query', () => {
    expect(findProjectToken('api_key=phc_x', undefined)).toBeNull();
  });

  it('returns null when nothing carries a token', () => {
    expect(findProjectToken({ event: 'x', properties: {} }, {})).toBeNull();
  });

  it('returns null for null body and query', () => {
    expect(findProjectToken(null, null)).toBeNull();
  });

  it('finds a token placed in any single supported location', () => {
    const locations: Array<(token: string) => { body: unknown; query: unknown }> = [
      (t) => ({ body: { api_key: t }, query: undefined }),
      (t) => ({ body: { token: t }, query: undefined }),
      (t) => ({ body: { $token: t }, query: undefined }),
      (t) => ({ body: { properties: { token: t } }, query: undefined }),
      (t) => ({ body: { batch: [{ api_key: t }] }, query: undefined }),
      (t) => ({ body: [{ $token: t }], query: undefined }),
      (t) => ({ body: undefined, query: { token: t } }),
      (t) => ({ body: undefined, query: { api_key: t } }),
    ];
    fc.assert(
      fc.property(keyArb, fc.constantFrom(...locations), (token, place) => {
        const { body, query } = place(token);
        expect(findProjectToken(body, query)).toBe(token);
      }),
    );
  });
});

describe(findProjectIdParam.name, () => {
  it('reads a string project_id from the body', () => {
    expect(findProjectIdParam({ project_id: '12' }, undefined)).toBe('12');
  });

  it('reads an integer project_id from the body as a string', () => {
    expect(findProjectIdParam({ project_id: 12 }, undefined)).toBe('12');
  });

  it('reads project_id from the query', () => {
    expect(findProjectIdParam(undefined, { project_id: '7' })).toBe('7');
  });

  it('prefers the body over the query', () => {
    expect(findProjectIdParam({ project_id: '1' }, { project_id: '2' })).toBe('1');
  });

  it('falls back to the query when the body has no project_id', () => {
    expect(findProjectIdParam({ other: 1 }, { project_id: '2' })).toBe('2');
  });

  it('falls back to the query when the body project_id is null', () => {
    expect(findProjectIdParam({ project_id: null }, { project_id: '2' })).toBe('2');
  });

  it('trims a string project_id', () => {
    expect(findProjectIdParam(undefined, { project_id: ' 7 ' })).toBe('7');
  });

  it('passes non-numeric strings through for the caller to reject', () => {
    expect(findProjectIdParam({ project_id: 'abc' }, undefined)).toBe('abc');
  });

  it('rejects a non-integer number', () => {
    expect(findProjectIdParam({ project_id: 1.5 }, undefined)).toBeNull();
  });

  it('rejects a boolean', () => {
    expect(findProjectIdParam({ project_id: true }, undefined)).toBeNull();
  });

  it('rejects a whitespace-only string', () => {
    expect(findProjectIdParam(undefined, { project_id: '  ' })).toBeNull();
  });

  it('ignores an array body', () => {
    expect(findProjectIdParam([{ project_id: '1' }], undefined)).toBeNull();
  });

  it('returns null when neither body nor query has one', () => {
    expect(findProjectIdParam({}, {})).toBeNull();
  });

  it('returns the decimal form of every safe integer', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (id) => {
        expect(findProjectIdParam({ project_id: id }, undefined)).toBe(String(id));
      }),
    );
  });
});

describe(authenticationFields.name, () => {
  // Bodies shaped like capture payloads, with keys wherever the finders look and values of every kind.
  const value = fc.oneof(keyArb, fc.constant('  '), fc.integer(), fc.constant(null));
  const event = fc.record({ api_key: value, token: value, $token: value, properties: fc.record({ token: value }, { requiredKeys: [] }) }, { requiredKeys: [] });
  const body = fc.oneof(
    fc.array(event),
    fc.record({ api_key: value, token: value, personal_api_key: value, project_id: value, batch: fc.array(event), properties: fc.record({ token: value }, { requiredKeys: [] }) }, { requiredKeys: [] }),
    fc.constant(null),
    fc.string(),
  );
  const query = fc.record({ token: value, api_key: value, personal_api_key: value, project_id: value }, { requiredKeys: [] });

  it('stands in for a body: every finder finds in it what it finds in the whole', () => {
    fc.assert(
      fc.property(body, query, fc.option(fc.constant('Bearer phx_header'), { nil: undefined }), (whole, q, authorization) => {
        const fields = authenticationFields(whole);
        expect(findProjectToken(fields, q)).toBe(findProjectToken(whole, q));
        expect(findPersonalApiKey(authorization, fields, q)).toEqual(findPersonalApiKey(authorization, whole, q));
        expect(findProjectIdParam(fields, q)).toBe(findProjectIdParam(whole, q));
      }),
    );
  });

  it('keeps nothing else of the body', () => {
    expect(authenticationFields({ api_key: 'phc_a', batch: [{ event: 'e', properties: { blob: 'x'.repeat(1000) } }], sent_at: 'now' })).toEqual({ api_key: 'phc_a' });
  });
});
