import type { ChainDialect, SelectorStep } from '../../../kernel/element-sql';
import type { ChParams } from '../engine/ch-sql';
import { bindText } from './sql-text.ch';

/**
 * The selector in one pass over the elements, innermost first, keeping two sets of parts as bits: those matched
 * ending at the element before (`acc.1`: a direct parent must come right after) and those matched ending anywhere
 * before (`acc.2`: an ancestor may come any number of elements later). Part k matches at an element when the element
 * has its tag, classes and attributes and part k-1 matched as its combinator requires; the selector matches when its
 * last part does. (One fold over one array: a second array beside the elements, shifted to carry the part before,
 * came back with another row's length under some WHERE orders in chdb 26.7.)
 */
function foldSelector(chain: string, elements: string, parts: SelectorStep[]): string {
  const here = parts.map((part, k) => {
    const before = k === 0 ? '1' : `bitTest(${part.directParent ? 'acc.1' : 'acc.2'}, ${k - 1})`;
    return `bitShiftLeft(toUInt64(${before} AND ${part.matches('el')}), ${k})`;
  });
  const ending = here.reduce((bits, part) => `bitOr(${bits}, ${part})`, 'toUInt64(0)');
  const step = `(acc, el) -> (${ending}, bitOr(acc.2, ${ending}))`;
  return `bitTest(arrayFold(${step}, extractAll(${chain}, ${elements}), (toUInt64(0), toUInt64(0))).2, ${parts.length - 1})`;
}

/** The element and action rules in ClickHouse's SQL (RE2 patterns), every text bound as a String. */
export function chChainDialect(p: ChParams): ChainDialect {
  return {
    always: '1',
    never: '0',
    matches: (text, pattern) => `match(${text}, ${bindText(p, pattern)})`,
    contains: (text, needle, ignoreCase) => `${ignoreCase ? 'positionCaseInsensitive' : 'position'}(${text}, ${bindText(p, needle)}) > 0`,
    equals: (text, value) => `${text} = ${bindText(p, value)}`,
    firstCapture: (text, pattern) => `extract(${text}, ${bindText(p, pattern)})`,
    someCapture: (text, pattern, condition) => `arrayExists((__capture) -> ${condition('__capture')}, extractAll(${text}, ${bindText(p, pattern)}))`,
    selector: (chain, elementPattern, parts) => foldSelector(chain, bindText(p, elementPattern), parts),
  };
}
