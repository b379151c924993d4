/**
 * Trend formulas (`A+B`, `(A-B)/A*100`): numbers, series letters, + - * /, unary minus and parentheses.
 * Parsed once into a tree, then evaluated per data point; division by zero gives 0, as in PostHog.
 */

export type Formula =
  | { kind: 'number'; value: number }
  | { kind: 'series'; index: number }
  | { kind: 'negate'; operand: Formula }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/'; left: Formula; right: Formula };

export class FormulaError extends Error {}

const TOKEN = /\s*(\d+(?:\.\d+)?|[A-Za-z]|[-+*/()])/y;
const MAX_LENGTH = 500;

function tokenize(text: string): string[] {
  if (text.length > MAX_LENGTH) throw new FormulaError(`is longer than ${MAX_LENGTH} characters`);
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex + (/^\s*/.exec(text.slice(TOKEN.lastIndex))?.[0].length ?? 0);
    const match = TOKEN.exec(text);
    if (!match) throw new FormulaError(`has an unexpected character at position ${at + 1}`);
    tokens.push(match[1]);
  }
  return tokens;
}

class Parser {
  private position = 0;
  constructor(private readonly tokens: string[], private readonly seriesCount: number) {}

  parse(): Formula {
    if (this.tokens.length === 0) throw new FormulaError('is empty');
    const formula = this.sum();
    if (this.position < this.tokens.length) throw new FormulaError(`has an unexpected "${this.tokens[this.position]}"`);
    return formula;
  }

  private sum(): Formula {
    let left = this.product();
    while (this.peek() === '+' || this.peek() === '-') left = { kind: 'binary', op: this.take() as '+' | '-', left, right: this.product() };
    return left;
  }

  private product(): Formula {
    let left = this.unary();
    while (this.peek() === '*' || this.peek() === '/') left = { kind: 'binary', op: this.take() as '*' | '/', left, right: this.unary() };
    return left;
  }

  private unary(): Formula {
    if (this.peek() === '-') {
      this.take();
      return { kind: 'negate', operand: this.unary() };
    }
    if (this.peek() === '+') this.take();
    return this.atom();
  }

  private atom(): Formula {
    const token = this.take();
    if (token === undefined) throw new FormulaError('ends too early');
    if (token === '(') {
      const inner = this.sum();
      if (this.take() !== ')') throw new FormulaError('has an unclosed "("');
      return inner;
    }
    if (/^\d/.test(token)) return { kind: 'number', value: Number(token) };
    if (/^[A-Za-z]$/.test(token)) {
      const index = token.toUpperCase().charCodeAt(0) - 65;
      if (index >= this.seriesCount) throw new FormulaError(`uses series ${token.toUpperCase()}, but there ${this.seriesCount === 1 ? 'is 1 series' : `are ${this.seriesCount} series`}`);
      return { kind: 'series', index };
    }
    throw new FormulaError(`has an unexpected "${token}"`);
  }

  private peek(): string | undefined {
    return this.tokens[this.position];
  }

  private take(): string | undefined {
    return this.tokens[this.position++];
  }
}

export function parseFormula(text: string, seriesCount: number): Formula {
  return new Parser(tokenize(text), seriesCount).parse();
}

/** The formula's value for one data point, given each series' value there. */
export function evaluateFormula(formula: Formula, values: readonly number[]): number {
  switch (formula.kind) {
    case 'number':
      return formula.value;
    case 'series':
      return values[formula.index] ?? 0;
    case 'negate':
      return -evaluateFormula(formula.operand, values);
    case 'binary': {
      const left = evaluateFormula(formula.left, values);
      const right = evaluateFormula(formula.right, values);
      if (formula.op === '+') return left + right;
      if (formula.op === '-') return left - right;
      if (formula.op === '*') return left * right;
      return right === 0 ? 0 : left / right;
    }
  }
}
