import { matchesProperty } from '../../../src/kernel/compiled-property';

const NOW = new Date('2026-06-15T12:00:00Z');
const match = (operator: string, value: unknown, actual: unknown) => matchesProperty({ key: 'p', value, operator, type: 'person' }, { p: actual }, NOW);

/**
 * Case folding as PostHog's flags service does it: the substring operators
 * fold ASCII letters only, `exact` and `is_not` fold all of Unicode. posthog-node's local evaluation
 * does the same, so a server that folded "Ë" for `icontains` answered differently from the SDK.
 */
describe('matchesProperty case folding', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['icontains', 'zoë', 'ZOË@EXAMPLE.DE', false],
    ['icontains', 'ZOË', 'zoë@example.de', false],
    ['icontains', 'ë', 'ZOË@EXAMPLE.DE', false],
    ['icontains', 'zo', 'ZOË@EXAMPLE.DE', true],
    ['icontains', 'Ë@example', 'ZOË@EXAMPLE.DE', true],
    ['not_icontains', 'zoë', 'ZOË@EXAMPLE.DE', true],
    ['starts_with', 'éc', 'École', false],
    ['starts_with', 'Éc', 'École', true],
    ['ends_with', 'FÉ', 'café', false],
    ['not_ends_with', 'É', 'café', true],
    ['icontains_multi', ['straße', 'ë'], 'STRASSE ZOË', false],
    ['not_icontains_multi', ['Ë'], 'zoë', true],
    ['exact', 'zoë@example.de', 'ZOË@EXAMPLE.DE', true],
    ['is_not', 'ZOË', 'zoë', false],
  ])('%s %j against %j → %s', (operator, value, actual, expected) => {
    expect(match(operator, value, actual)).toBe(expected);
  });
});
