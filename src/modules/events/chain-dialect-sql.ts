import type { SqlParams } from '../../database/sql-params';
import type { ChainDialect, SelectorStep } from '../../kernel/element-sql';

/**
 * The selector as nested EXISTS over the chain's elements with their positions, innermost part outermost: part k at
 * the element right after part k-1's (a direct parent) or at any later one (an ancestor). Selectors are a handful of
 * parts and chains a few dozen elements, so the nesting stays small.
 */
function nestedSelector(chain: string, elements: string, parts: SelectorStep[], k = 0): string {
  const here = `__el${k}`;
  const conditions = [parts[k].matches(`${here}.m[1]`)];
  if (k > 0) conditions.unshift(parts[k].directParent ? `${here}.i = __el${k - 1}.i + 1` : `${here}.i > __el${k - 1}.i`);
  if (k + 1 < parts.length) conditions.push(nestedSelector(chain, elements, parts, k + 1));
  return `EXISTS (SELECT 1 FROM regexp_matches(${chain}, ${elements}, 'g') WITH ORDINALITY AS ${here}(m, i) WHERE ${conditions.join(' AND ')})`;
}

/**
 * The element and action rules in PostgreSQL's SQL, every text bound. Patterns run as PostgreSQL's regular
 * expressions (AREs), which read the patterns these rules write as RE2 does; a user's own pattern is checked as RE2
 * when parsed and any dialect difference PostgreSQL refuses is a 400 (filter-query-errors.ts).
 */
export function pgChainDialect(p: SqlParams): ChainDialect {
  return {
    always: 'TRUE',
    never: 'FALSE',
    matches: (text, pattern) => `(${text} ~ ${p.add(pattern)}::text)`,
    contains: (text, needle, ignoreCase) =>
      ignoreCase ? `(strpos(lower(${text}), lower(${p.add(needle)}::text)) > 0)` : `(strpos(${text}, ${p.add(needle)}::text) > 0)`,
    equals: (text, value) => `(${text} = ${p.add(value)}::text)`,
    firstCapture: (text, pattern) => `coalesce(substring(${text} from ${p.add(pattern)}::text), '')`,
    someCapture: (text, pattern, condition) => `EXISTS (SELECT 1 FROM regexp_matches(${text}, ${p.add(pattern)}::text, 'g') AS __capture(m) WHERE ${condition('__capture.m[1]')})`,
    selector: (chain, elementPattern, parts) => nestedSelector(chain, `${p.add(elementPattern)}::text`, parts),
  };
}
