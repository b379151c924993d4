import fc from 'fast-check';
import { evaluateFormula, FormulaError, parseFormula } from '../../../src/modules/analytics/model/formula';

describe(parseFormula.name, () => {
  it.each([
    ['A+B', [3, 4], 7],
    ['(A-B)/A*100', [4, 1], 75],
    ['-A + 2*B', [1, 2], 3],
    ['a/b', [1, 0], 0],
    ['A * (B + 0.5)', [2, 1.5], 4],
  ])('evaluates %s', (text, values, expected) => {
    expect(evaluateFormula(parseFormula(text, values.length), values)).toBe(expected);
  });

  it.each([
    ['', 'is empty'],
    ['A+', 'ends too early'],
    ['(A', 'has an unclosed "("'],
    ['A)', 'has an unexpected ")"'],
    ['A % B', 'has an unexpected character at position 3'],
    ['C', 'uses series C, but there are 2 series'],
  ])('refuses %j: %s', (text, message) => {
    expect(() => parseFormula(text, 2)).toThrow(new FormulaError(message));
  });

  it('adds series the same way as the plain sum for any values', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 26 }), (values) => {
      const text = values.map((_, i) => String.fromCharCode(65 + i)).join('+');
      expect(evaluateFormula(parseFormula(text, values.length), values)).toBe(values.reduce((a, b) => a + b, 0));
    }));
  });
});
