import escapeRegExp from 'escape-string-regexp';
import { parseSelector, SelectorPart } from './element-selector';
import type { PropertyLeaf } from './property-filters';

/**
 * Element filters (`type: "element"`) over an event's elements chain (`tag.class:attr_id="…"href="…"text="…"`, the
 * clicked element first, `;` between elements), with PostHog's meaning
 * (https://github.com/PostHog/posthog/blob/master/posthog/hogql/property.py, `element_chain_key_filter`,
 * `selector_to_expr`): `text` and `href` match the attribute on any element of the chain; `tag_name` names any
 * element's tag; `selector` is a CSS selector matched against the chain, ancestors included.
 *
 * The rules are written once here; each engine supplies the few SQL forms they need (a {@link ChainDialect}), so the
 * events list (PostgreSQL) and the insights (ClickHouse) match the same events.
 */

/** One selector part as SQL: whether an element (SQL text of one entry of the chain) has its tag, classes and attributes. */
export interface SelectorStep {
  /** This part is the direct parent of the part before it, not any ancestor. */
  directParent: boolean;
  matches: (element: string) => string;
}

/** The SQL forms the element rules need from an engine; each binds the user text it is given. */
export interface ChainDialect {
  readonly always: string;
  readonly never: string;
  /** `text` matches a regular expression (RE2 in ClickHouse, an ARE in PostgreSQL). */
  matches(text: string, pattern: string): string;
  /** `text` holds `needle`, ignoring case if asked. */
  contains(text: string, needle: string, ignoreCase: boolean): string;
  equals(text: string, value: string): string;
  /** The first capture of `pattern` in `text`, or '' without a match. */
  firstCapture(text: string, pattern: string): string;
  /** Some capture of `pattern` in `text` meets `condition`, which is written over the capture's SQL. */
  someCapture(text: string, pattern: string, condition: (capture: string) => string): string;
  /**
   * The chain has elements matching the parts in order, innermost first: part k at an element after part k-1's (the
   * next element when part k is a direct parent), as CSS reads a selector from its right.
   */
  selector(chain: string, elementPattern: string, parts: SelectorStep[]): string;
}

/** Elements of a chain: runs outside quoted values up to the next `;`. */
export const CHAIN_ELEMENT = '(?:[^;"]|"(?:\\\\.|[^"])*")+';
/**
 * The first link of the chain and every text in it, as PostHog reads them (`elements_chain_href`,
 * `elements_chain_texts`). PostHog writes the leading `(?::|")`; a class says the same, and PostgreSQL, which takes a
 * whole pattern's greediness from its first alternation, then keeps `.*?` lazy.
 */
export const CHAIN_HREF = '[:"]href="(.*?)"';
export const CHAIN_TEXT = '[:"]text="(.*?)"';

/** Parts a selector may have (ClickHouse keeps one bit per part in a UInt64). */
const MAX_PARTS = 64;

const NEGATED_ELEMENT: Readonly<Record<string, string>> = { is_not: 'exact', not_icontains: 'icontains', not_regex: 'regex', is_not_set: 'is_set' };

/** A value as the chain writes it inside quotes: `"` escaped. */
function chainText(value: unknown): string {
  return String(value).replace(/"/g, '\\"');
}

/** `text="…"` or `href="…"` somewhere in the chain, the value compared as `operator` (positive) says. */
function attributeSql(key: 'text' | 'href', operator: string, value: unknown, chain: string, d: ChainDialect): string {
  const escaped = chainText(value);
  const pattern = {
    is_set: '[^"]+',
    icontains: `[^"]*${escapeRegExp(escaped)}[^"]*`,
    regex: escaped,
    exact: escapeRegExp(escaped),
  }[operator];
  return d.matches(chain, `${operator === 'icontains' ? '(?i)' : ''}(${key}="${pattern}")`);
}

/** An element of the chain has this tag. */
function tagSql(tag: unknown, chain: string, d: ChainDialect): string {
  return d.matches(chain, `(^|;)${escapeRegExp(String(tag))}(\\.|$|;|:)`);
}

/** One element matches one selector part: its tag, every class, every attribute. */
function partSql(part: SelectorPart, element: string, d: ChainDialect): string {
  const conditions: string[] = [];
  if (part.tag !== null) conditions.push(d.matches(element, `^${escapeRegExp(part.tag)}(\\.|:|$)`));
  for (const name of part.classes) conditions.push(d.matches(element, `^[^"]*\\.${escapeRegExp(name)}(\\.|:|$)`));
  for (const [key, value] of part.attributes) conditions.push(d.contains(element, `${key}="${chainText(value)}"`, false));
  return conditions.length ? conditions.join(' AND ') : d.always;
}

/** A CSS selector matched against the chain, ancestors included; one that names nothing matches nothing. */
function selectorSql(selector: unknown, chain: string, d: ChainDialect): string {
  const parts = parseSelector(String(selector));
  if (parts.length === 0 || parts.length > MAX_PARTS) return d.never;
  const steps = parts.map((part) => ({ directParent: part.directParent, matches: (element: string) => partSql(part, element, d) }));
  return d.selector(chain, CHAIN_ELEMENT, steps);
}

function positiveSql(leaf: PropertyLeaf, operator: string, value: unknown, chain: string, d: ChainDialect): string {
  if (leaf.key === 'tag_name') return tagSql(value, chain, d);
  if (leaf.key === 'selector') return selectorSql(value, chain, d);
  return attributeSql(leaf.key as 'text' | 'href', operator, value, chain, d);
}

/** An element filter leaf as one condition over the elements chain `chain`; several values: any (all, negated). */
export function elementFilterSql(leaf: PropertyLeaf, chain: string, d: ChainDialect): string {
  const negated = Object.hasOwn(NEGATED_ELEMENT, leaf.operator);
  const operator = negated ? NEGATED_ELEMENT[leaf.operator] : leaf.operator;
  // `is_set` compares no value: one condition, whatever the filter's value says.
  const values = operator === 'is_set' ? [null] : Array.isArray(leaf.value) ? leaf.value : [leaf.value];
  if (values.length === 0) return negated ? d.always : d.never;
  const each = values.map((value) => positiveSql(leaf, operator, value, chain, d));
  return negated ? `(NOT (${each.join(' OR ')}))` : `(${each.join(' OR ')})`;
}

/** An element filter on one key with `exact`, as an action step writes its selector or tag. */
export function elementLeaf(key: string, value: string): PropertyLeaf {
  return { kind: 'leaf', key, value, operator: 'exact', type: 'element', negation: false };
}
