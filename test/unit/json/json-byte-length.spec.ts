import fc from 'fast-check';
import { jsonByteLength, jsonLongerThan, MAX_ESCAPE_GROWTH } from '../../../src/common/json/json-byte-length';

describe(jsonByteLength.name, () => {
  it('equals the UTF-8 length of JSON.stringify for any JSON value', () => {
    const text = fc.string({ unit: 'binary' }); // lone surrogates, controls, quotes and emoji included
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), tie('list'), tie('object')),
      list: fc.array(tie('node'), { maxLength: 5 }),
      object: fc.dictionary(text, tie('node'), { maxKeys: 5 }),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(jsonByteLength(v)).toBe(Buffer.byteLength(JSON.stringify(v)));
      }),
      { numRuns: 3000 },
    );
  });

  it('counts what JSON leaves out as it does: undefined properties dropped, undefined items as null', () => {
    const v = { a: undefined, b: [undefined, 1], c: () => 1 };
    expect(jsonByteLength(v)).toBe(Buffer.byteLength(JSON.stringify(v)));
  });

  it('without the escape scan, gives a lower bound at most MAX_ESCAPE_GROWTH times too small', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const exact = Buffer.byteLength(JSON.stringify(v));
        const bound = jsonByteLength(v, Infinity, false);
        expect(bound).toBeLessThanOrEqual(exact);
        expect(bound * MAX_ESCAPE_GROWTH).toBeGreaterThanOrEqual(exact);
      }),
    );
  });

  it('tells exactly whether the serialised value is longer than a limit', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 400 }), (v, limit) => {
        expect(jsonLongerThan(v, limit)).toBe(Buffer.byteLength(JSON.stringify(v)) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('stops counting once past the bound', () => {
    const big = { blob: 'x'.repeat(2_000_000), more: Array.from({ length: 1000 }, () => 'y'.repeat(1000)) };
    expect(jsonByteLength(big, 1_000_000)).toBeGreaterThan(1_000_000);
    expect(jsonByteLength(big, 1_000_000)).toBeLessThan(Buffer.byteLength(JSON.stringify(big)));
  });
});
