import fc from 'fast-check';
import { mergedObject } from '../../src/common/json/json-object';

/** JSON objects as parsing makes them: `__proto__` arrives as an own key, integer-like keys come first. */
const jsonObject = fc
  .dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '0', '12', '01', 'toString')), fc.jsonValue())
  .map((record) => JSON.parse(JSON.stringify(record)) as Record<string, unknown>);

describe('mergedObject', () => {
  it('builds what a spread of the same sources builds: keys, order, values and prototype', () => {
    fc.assert(
      fc.property(fc.array(fc.option(jsonObject, { nil: undefined }), { maxLength: 4 }), (sources) => {
        const sut = mergedObject(...sources);
        const spread = sources.reduce<Record<string, unknown>>((merged, source) => ({ ...merged, ...source }), {});
        expect(Object.keys(sut)).toEqual(Object.keys(spread));
        expect(Object.keys(sut).map((key) => sut[key])).toEqual(Object.keys(spread).map((key) => spread[key]));
        expect(Object.getPrototypeOf(sut)).toBe(Object.prototype);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps `__proto__` as an own key instead of setting the prototype', () => {
    const sut = mergedObject(JSON.parse('{"__proto__":{"polluted":true},"a":1}'), { b: 2 });
    expect(Object.getPrototypeOf(sut)).toBe(Object.prototype);
    expect((sut as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.hasOwn(sut, '__proto__')).toBe(true);
    expect(Object.keys(sut)).toEqual(['__proto__', 'a', 'b']);
  });

  it('lets later sources win and skips missing ones', () => {
    expect(mergedObject({ a: 1, b: 1 }, null, undefined, { b: 2, c: 3 })).toEqual({ a: 1, b: 2, c: 3 });
  });
});
