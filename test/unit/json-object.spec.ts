import fc from 'fast-check';
import { pickedObject } from '../../src/common/json/json-object';

/** JSON objects as parsing makes them: `__proto__` arrives as an own key, integer-like keys come first. */
const jsonObject = fc
  .dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '0', '12', '01', 'toString')), fc.jsonValue())
  .map((record) => JSON.parse(JSON.stringify(record)) as Record<string, unknown>);

describe('pickedObject', () => {
  it('holds what a spread of the same sources holds under the picked keys, and nothing else', () => {
    const keys = fc.array(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '0', '12', 'toString')), { maxLength: 6 });
    fc.assert(
      fc.property(keys, fc.array(fc.option(jsonObject, { nil: undefined }), { maxLength: 4 }), (picked, sources) => {
        const sut = pickedObject(picked, ...sources);
        const spread = sources.reduce<Record<string, unknown>>((merged, source) => ({ ...merged, ...source }), {});
        const expected = picked.filter((key) => Object.hasOwn(spread, key));
        expect(Object.keys(sut).sort()).toEqual([...new Set(expected)].sort());
        for (const key of expected) expect(sut[key]).toEqual(spread[key]);
        expect(Object.getPrototypeOf(sut)).toBe(Object.prototype);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps `__proto__` as an own key instead of setting the prototype', () => {
    const sut = pickedObject(['__proto__', 'a', 'b'], JSON.parse('{"__proto__":{"polluted":true},"a":1}'), { b: 2 });
    expect(Object.getPrototypeOf(sut)).toBe(Object.prototype);
    expect((sut as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.hasOwn(sut, '__proto__')).toBe(true);
    expect(Object.keys(sut)).toEqual(['__proto__', 'a', 'b']);
  });

  it('lets later sources win, skips missing ones and keys nobody picked', () => {
    expect(pickedObject(['a', 'b', 'c'], { a: 1, b: 1, z: 9 }, null, undefined, { b: 2, c: 3, y: 8 })).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('does work that follows the picked keys, not the size of the sources', () => {
    const huge = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]));
    const started = performance.now();
    for (let i = 0; i < 100; i++) pickedObject(['k5', 'plan'], huge, { plan: 'pro' });
    expect(performance.now() - started).toBeLessThan(50);
  });
});
