import { closestWord, didYouMean } from '../../src/common/text/did-you-mean';

describe('didYouMean', () => {
  it('suggests the known word one slip away', () => {
    expect(closestWord('evnt', ['event', 'person'])).toBe('event');
    expect(didYouMean('persn', ['event', 'person'])).toBe(' Did you mean person?');
  });

  it('suggests nothing for a word far from every known one', () => {
    expect(closestWord('equals', ['exact', 'is_not'])).toBeNull();
    expect(didYouMean('zzz', ['event'])).toBe('');
  });
});
