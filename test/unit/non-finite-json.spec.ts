import fc from 'fast-check';
import { parseJsonPayload } from '../../src/modules/ingestion/payload/payload-decoding';
import { nonFiniteToNull } from '../../src/common/json/non-finite-json';

describe('nonFiniteToNull', () => {
  it("rewrites Python's NaN, Infinity and -Infinity outside strings to null", () => {
    expect(nonFiniteToNull('{"a": NaN, "b": [Infinity, -Infinity], "c": 1}')).toBe('{"a": null, "b": [null, null], "c": 1}');
  });

  it('leaves the same words inside strings alone, escaped quotes included', () => {
    expect(nonFiniteToNull('{"NaN": "Infinity \\" NaN", "x": NaN}')).toBe('{"NaN": "Infinity \\" NaN", "x": null}');
  });

  it('answers null when there is nothing to rewrite, so the caller keeps its own parse error', () => {
    expect(nonFiniteToNull('{"a": "NaN", "b": nan}')).toBeNull();
    expect(nonFiniteToNull('{"a": "unterminated NaN')).toBeNull();
  });

  it('reads any object of JSON values and non-finite tokens as the same object with null for each token', () => {
    const raw = fc.oneof(fc.constantFrom('NaN', 'Infinity', '-Infinity'), fc.jsonValue().map((value) => JSON.stringify(value)));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), raw), { maxLength: 8 }), (entries) => {
        const text = `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
        const expected = JSON.parse(`{${entries.map(([key, value]) => `${JSON.stringify(key)}:${/^-?(NaN|Infinity)$/.test(value) ? 'null' : value}`).join(',')}}`);
        const hasToken = entries.some(([, value]) => /^-?(NaN|Infinity)$/.test(value));
        const rewritten = nonFiniteToNull(text);
        expect(rewritten === null).toBe(!hasToken);
        expect(JSON.parse(rewritten ?? text)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseJsonPayload', () => {
  it("reads Python's non-finite numbers as null", () => {
    expect(parseJsonPayload('{"api_key": "k", "batch": [{"properties": {"a": NaN}}]}')).toEqual({ api_key: 'k', batch: [{ properties: { a: null } }] });
  });

  it('reports the parse error of the text as sent when it is malformed for another reason too', () => {
    expect(() => parseJsonPayload('{"a": NaN,}')).toThrow(expect.objectContaining({ code: 'invalid_payload' }));
  });
});
