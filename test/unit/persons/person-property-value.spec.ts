import { propertyValueOf } from '../../../src/modules/persons/person-requests';

describe(propertyValueOf.name, () => {
  it('keeps the type of JSON text and cleans what its escapes hold, as stored properties are', () => {
    expect(propertyValueOf('5')).toBe(5);
    expect(propertyValueOf('{"a":"x\\u0000","\\ud800":[true]}')).toEqual({ a: 'x\ufffd', '\ufffd': [true] });
    expect(propertyValueOf('not json')).toBe('not json');
    expect(propertyValueOf({ a: 1 })).toEqual({ a: 1 });
  });
});
