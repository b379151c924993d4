import { compileProperty } from '../../../src/kernel/compiled-property';
import { MAX_COMPARED_CHARS, MAX_REGEX_WORK } from '../../../src/kernel/property-match';
import { RE2JS } from 're2js';

const now = new Date('2026-01-01T00:00:00Z');
const test = (operator: string, value: unknown, actual: unknown) => compileProperty({ key: 'bio', operator, value, type: 'person' })({ bio: actual }, now);

/** What a caller can make a condition read is bounded (caller-sized work on the event loop); normal values are untouched. */
describe('bounded property values', () => {
  const longest = 'a'.repeat(MAX_COMPARED_CHARS);
  const tooLong = `${longest}a`;

  it.each([
    ['exact', longest],
    ['icontains', 'aaa'],
    ['starts_with', 'a'],
    ['ends_with', 'a'],
    ['icontains_multi', ['x', 'a']],
  ])('lets %s compare a value of the longest length (posthog-js never sends longer ones), and no longer one', (operator, value) => {
    expect(test(operator, value, longest)).toBe(true);
    expect(test(operator, value, tooLong)).toBe(false);
  });

  it.each(['is_not', 'not_icontains', 'not_starts_with', 'not_ends_with', 'not_icontains_multi'])(
    'fails %s too on a value too long to compare, as an invalid pattern fails both regex and not_regex',
    (operator) => {
      expect(test(operator, 'zzz', 'b'.repeat(MAX_COMPARED_CHARS))).toBe(true);
      expect(test(operator, 'zzz', 'b'.repeat(MAX_COMPARED_CHARS + 1))).toBe(false);
    },
  );

  it('bounds numbers, dates and versions given as long text, and objects by their JSON', () => {
    expect(test('gt', 5, `${' '.repeat(MAX_COMPARED_CHARS)}7`)).toBe(false);
    expect(test('gt', 5, `${' '.repeat(MAX_COMPARED_CHARS - 2)}7`)).toBe(true);
    expect(test('semver_gt', '1.0.0', `${' '.repeat(MAX_COMPARED_CHARS)}2.0.0`)).toBe(false);
    expect(test('icontains', 'needle', { text: `needle${'x'.repeat(MAX_COMPARED_CHARS)}` })).toBe(false);
    expect(test('icontains', 'needle', { text: 'a needle' })).toBe(true);
  });

  it('keeps is_set and is_not_set, which read no value', () => {
    expect(test('is_set', 'is_set', tooLong)).toBe(true);
    expect(test('is_not_set', 'is_not_set', tooLong)).toBe(false);
  });

  it("bounds a regex's work by the text's length times the pattern's program size", () => {
    const pattern = '(.*a){20}$';
    const size = RE2JS.compile(pattern).programSize();
    const limit = Math.floor(MAX_REGEX_WORK / size);
    expect(limit).toBeGreaterThan(1000);
    expect(test('regex', pattern, 'a'.repeat(limit))).toBe(true);
    expect(test('regex', pattern, 'a'.repeat(limit + 1))).toBe(false);
    expect(test('not_regex', pattern, 'b'.repeat(limit))).toBe(true);
    expect(test('not_regex', pattern, 'b'.repeat(limit + 1))).toBe(false);
    // An everyday URL rule reads URLs of a few thousand characters.
    expect(test('regex', '^https://example\\.com/', `https://example.com/${'p'.repeat(3_000)}`)).toBe(true);
    expect(test('regex', 'a', 'a'.repeat(MAX_COMPARED_CHARS + 1))).toBe(false);
  });

  it('answers the worst pattern on the longest value it reads within a few milliseconds', () => {
    const pattern = '(.*a){20}$';
    const limit = Math.floor(MAX_REGEX_WORK / RE2JS.compile(pattern).programSize());
    const condition = compileProperty({ key: 'bio', operator: 'regex', value: pattern, type: 'person' });
    condition({ bio: 'a'.repeat(limit) }, now); // compiles re2js's machines once
    const started = performance.now();
    for (let i = 0; i < 5; i++) condition({ bio: `${'a'.repeat(limit - 1)}!` }, now);
    expect((performance.now() - started) / 5).toBeLessThan(50);
  });
});
