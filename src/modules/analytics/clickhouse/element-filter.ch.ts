import escapeRegExp from 'escape-string-regexp';
import { parseSelector, SelectorPart } from '../../events/element-selector';
import type { PropertyLeaf } from '../../events/property-filters';
import type { ChParams } from '../engine/ch-sql';
import { bindText, chLiteral } from './sql-text.ch';

/**
 * Element filters (`type: "element"`) over an event's elements chain (`tag.class:attr_id="…"href="…"text="…"`, the
 * clicked element first, `;` between elements), with PostHog's meaning
 * (https://github.com/PostHog/posthog/blob/master/posthog/hogql/property.py, `element_chain_key_filter`,
 * `selector_to_expr`): `text` and `href` match the attribute on any element of the chain; `tag_name` names any
 * element's tag; `selector` is a CSS selector matched against the chain, ancestors included.
 */

const NEGATED_ELEMENT: Readonly<Record<string, string>> = { is_not: 'exact', not_icontains: 'icontains', not_regex: 'regex', is_not_set: 'is_set' };

/** A value as the chain writes it inside quotes: `"` escaped. */
function chainText(value: unknown): string {
  return String(value).replace(/"/g, '\\"');
}

/** `text="…"` or `href="…"` somewhere in the chain, the value compared as `operator` (positive) says. */
function attributeSql(key: 'text' | 'href', operator: string, value: unknown, chain: string, p: ChParams): string {
  const escaped = chainText(value);
  const pattern = {
    is_set: '[^"]+',
    icontains: `[^"]*${escapeRegExp(escaped)}[^"]*`,
    regex: escaped,
    exact: escapeRegExp(escaped),
  }[operator];
  const regex = `${operator === 'icontains' ? '(?i)' : ''}(${key}="${pattern}")`;
  return `match(${chain}, ${bindText(p, regex)})`;
}

/** An element of the chain has this tag. */
function tagSql(tag: unknown, chain: string, p: ChParams): string {
  return `match(${chain}, ${bindText(p, `(^|;)${escapeRegExp(String(tag))}(\\.|$|;|:)`)})`;
}

/** Elements of a chain: runs outside quoted values up to the next `;`. */
const ELEMENT = chLiteral('(?:[^;"]|"(?:\\\\.|[^"])*")+');

/** One element (`el`, one entry of the chain) matches one selector part: its tag, every class, every attribute. */
function partSql(part: SelectorPart, p: ChParams): string {
  const conditions: string[] = [];
  if (part.tag !== null) conditions.push(`match(el, ${bindText(p, `^${escapeRegExp(part.tag)}(\\.|:|$)`)})`);
  for (const name of part.classes) conditions.push(`match(el, ${bindText(p, `^[^"]*\\.${escapeRegExp(name)}(\\.|:|$)`)})`);
  for (const [key, value] of part.attributes) conditions.push(`position(el, ${bindText(p, `${key}="${chainText(value)}"`)}) > 0`);
  return conditions.length ? conditions.join(' AND ') : '1';
}

/** Parts a selector may have: one bit each in a UInt64. */
const MAX_PARTS = 64;

/**
 * The selector matches the chain. One pass over the elements, innermost first, keeping two sets of parts as bits:
 * those matched ending at the element before (`acc.1`: a direct parent must come right after) and those matched
 * ending anywhere before (`acc.2`: an ancestor may come any number of elements later). Part k matches at an
 * element when the element has its tag, classes and attributes and part k-1 matched as its combinator requires;
 * the selector matches when its last part does. (One fold over one array: a second array beside the elements,
 * shifted to carry the part before, came back with another row's length under some WHERE orders in chdb 26.7.)
 */
function selectorSql(selector: unknown, chain: string, p: ChParams): string {
  const parts = parseSelector(String(selector));
  if (parts.length === 0 || parts.length > MAX_PARTS) return '0';
  const here = parts.map((part, k) => {
    const before = k === 0 ? '1' : `bitTest(${part.directParent ? 'acc.1' : 'acc.2'}, ${k - 1})`;
    return `bitShiftLeft(toUInt64(${before} AND ${partSql(part, p)}), ${k})`;
  });
  const ending = here.reduce((bits, part) => `bitOr(${bits}, ${part})`, 'toUInt64(0)');
  const step = `(acc, el) -> (${ending}, bitOr(acc.2, ${ending}))`;
  return `bitTest(arrayFold(${step}, extractAll(${chain}, ${ELEMENT}), (toUInt64(0), toUInt64(0))).2, ${parts.length - 1})`;
}

function positiveSql(leaf: PropertyLeaf, operator: string, value: unknown, chain: string, p: ChParams): string {
  if (leaf.key === 'tag_name') return tagSql(value, chain, p);
  if (leaf.key === 'selector') return selectorSql(value, chain, p);
  return attributeSql(leaf.key as 'text' | 'href', operator, value, chain, p);
}

/** An element filter leaf as one condition over the elements chain `chain`; several values: any (all, negated). */
export function elementFilterSql(leaf: PropertyLeaf, chain: string, p: ChParams): string {
  const negated = Object.hasOwn(NEGATED_ELEMENT, leaf.operator);
  const operator = negated ? NEGATED_ELEMENT[leaf.operator] : leaf.operator;
  // `is_set` compares no value: one condition, whatever the filter's value says.
  const values = operator === 'is_set' ? [null] : Array.isArray(leaf.value) ? leaf.value : [leaf.value];
  if (values.length === 0) return negated ? '1' : '0';
  const each = values.map((value) => positiveSql(leaf, operator, value, chain, p));
  return negated ? `(NOT (${each.join(' OR ')}))` : `(${each.join(' OR ')})`;
}
