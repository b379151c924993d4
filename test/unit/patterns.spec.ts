import { parseId } from '../../src/common/validation/patterns';

describe(parseId.name, () => {
  it.each<[unknown, number | null]>([
    ['42', 42],
    [42, 42],
    ['2147483647', null], // ten digits: longer than an id path segment may be
    [2_147_483_647, 2_147_483_647],
    [2_147_483_648, null],
    ['0', null],
    [0, null],
    ['-1', null],
    ['1.5', null],
    [1.5, null],
    [' 7', null],
    ['007', 7],
    ['abc', null],
    [null, null],
    [undefined, null],
    [true, null],
  ])('%j → %j', (raw, expected) => {
    expect(parseId(raw)).toBe(expected);
  });
});
