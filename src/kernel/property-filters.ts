import { queryText } from '../common/http/query-values';
import { isJsonObject } from '../common/json/json-object';
import { closestWord, didYouMean } from '../common/text/did-you-mean';
import { NEGATED } from './property-match';

/** One leaf of PostHog's property filter list (`{key, value, operator, type, negation}`). */
export interface PropertyLeaf {
  kind: 'leaf';
  key: string;
  value: unknown;
  operator: string;
  type: string;
  negation: boolean;
  /** Group filters: which group type (0–4) the property belongs to. */
  groupTypeIndex?: number;
}

export interface PropertyGroup {
  kind: 'group';
  op: 'AND' | 'OR';
  children: PropertyNode[];
}

export type PropertyNode = PropertyLeaf | PropertyGroup;

/** A filter list the API refuses (400); `detail` is what the caller is told. */
export class PropertyFilterError extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

/** The filter types this service reads (where each applies is the compiler's to say: the analytics read all of them). */
export const PROPERTY_TYPES = ['event', 'person', 'group', 'cohort', 'element', 'session'] as const;

/** Filter types PostHog has that this service does not evaluate: refused for what they are, not as typos. */
const UNSUPPORTED_TYPES = new Set([
  'hogql', 'data_warehouse', 'data_warehouse_person_property', 'recording', 'log_entry', 'error_tracking_issue', 'feature', 'flag',
  'event_metadata', 'revenue_analytics', 'log', 'workflow_variable',
]);

/** Every operator a filter may name (PostHog's PropertyOperator, less the ones this service does not evaluate). */
export const PROPERTY_OPERATORS = [
  'exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'gte', 'lt', 'lte', 'is_set', 'is_not_set',
  'is_date_exact', 'is_date_before', 'is_date_after', 'starts_with', 'not_starts_with', 'ends_with', 'not_ends_with',
  'icontains_multi', 'not_icontains_multi', 'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte',
  'semver_tilde', 'semver_caret', 'semver_wildcard', 'in', 'not_in',
] as const;

/**
 * The operators a property condition tests itself, as both SQL compilers write them: all but presence (`is_set`,
 * `is_not_set`), cohort membership (`in`, `not_in`) and the negated forms, each the opposite of one of these.
 */
export const POSITIVE_OPERATORS: ReadonlySet<string> = new Set(
  PROPERTY_OPERATORS.filter((operator) => !Object.hasOwn(NEGATED, operator) && !['is_set', 'is_not_set', 'in', 'not_in'].includes(operator)),
);

/** Words people write for an operator that PostHog spells otherwise. */
const OPERATOR_SYNONYMS: Readonly<Record<string, string>> = {
  equals: 'exact', eq: 'exact', '=': 'exact', is: 'exact', not_equals: 'is_not', neq: 'is_not', '!=': 'is_not', contains: 'icontains',
  not_contains: 'not_icontains', matches: 'regex', exists: 'is_set', not_exists: 'is_not_set', '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte',
};

/** The operators each filter type takes, where it takes fewer than all. */
const OPERATORS_OF: Partial<Record<(typeof PROPERTY_TYPES)[number], readonly string[]>> = {
  cohort: ['exact', 'in', 'not_in'],
};

/** Element filters' keys, as PostHog's autocapture filters name them, and the operators each takes. */
export const ELEMENT_KEYS: Readonly<Record<string, readonly string[]>> = {
  text: ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'is_set', 'is_not_set'],
  href: ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'is_set', 'is_not_set'],
  tag_name: ['exact', 'is_not'],
  selector: ['exact', 'is_not'],
};

function checkedType(type: string): string {
  if ((PROPERTY_TYPES as readonly string[]).includes(type)) return type;
  if (UNSUPPORTED_TYPES.has(type)) throw new PropertyFilterError(`Property filters of type "${type}" are not supported by this server: use one of ${PROPERTY_TYPES.join(', ')}.`);
  throw new PropertyFilterError(`Unknown property filter type "${type}".${didYouMean(type, PROPERTY_TYPES)} Use one of ${PROPERTY_TYPES.join(', ')}.`);
}

function checkedOperator(operator: string, type: string, key: string): string {
  const allowed = type === 'element' ? ELEMENT_KEYS[key] : (OPERATORS_OF[type as keyof typeof OPERATORS_OF] ?? PROPERTY_OPERATORS.filter((o) => o !== 'in' && o !== 'not_in'));
  if (allowed.includes(operator)) return operator;
  const meant = OPERATOR_SYNONYMS[operator.toLowerCase()] ?? closestWord(operator, allowed);
  const hint = meant !== null && allowed.includes(meant) ? ` Did you mean ${meant}?` : '';
  const known = (PROPERTY_OPERATORS as readonly string[]).includes(operator) ? `Operator "${operator}" does not apply to ${type} filters${type === 'element' ? ` on ${key}` : ''}.` : `Unknown operator "${operator}".`;
  throw new PropertyFilterError(`${known}${hint} Use one of ${allowed.join(', ')}.`);
}

function checkedElementKey(key: string): string {
  if (Object.hasOwn(ELEMENT_KEYS, key)) return key;
  const keys = Object.keys(ELEMENT_KEYS);
  throw new PropertyFilterError(`Element filters read ${keys.join(', ')}, not "${key}".${didYouMean(key, keys)}`);
}

/** Bounds that keep one request from producing an unbounded query. */
const MAX_DEPTH = 5;
const MAX_LEAVES = 50;

function parseLeaf(raw: Record<string, unknown>, defaultType: string, checked: boolean): PropertyLeaf {
  if (typeof raw.key !== 'string' && typeof raw.key !== 'number') throw new PropertyFilterError('Property filter is missing a key.');
  const operator = raw.operator === undefined || raw.operator === null ? 'exact' : raw.operator;
  if (typeof operator !== 'string') throw new PropertyFilterError('Property filter operator must be a string.');
  const rawType = raw.type === undefined || raw.type === null ? defaultType : raw.type;
  if (typeof rawType !== 'string') throw new PropertyFilterError('Property filter type must be a string.');
  const type = checked ? checkedType(rawType) : rawType;
  const key = checked && type === 'element' ? checkedElementKey(String(raw.key)) : String(raw.key);
  const leaf: PropertyLeaf = { kind: 'leaf', key, value: raw.value, operator: checked ? checkedOperator(operator, type, key) : operator, type, negation: raw.negation === true };
  const groupTypeIndex = Number(raw.group_type_index);
  if (type === 'group' && Number.isInteger(groupTypeIndex) && groupTypeIndex >= 0 && groupTypeIndex <= 4) leaf.groupTypeIndex = groupTypeIndex;
  else if (type === 'group' && checked) throw new PropertyFilterError(`Group filters need group_type_index (0–4): the group type "${key}" belongs to.`);
  return leaf;
}

interface ParseState {
  leaves: number;
  checked: boolean;
}

function parseNode(raw: unknown, defaultType: string, depth: number, state: ParseState): PropertyNode {
  if (depth > MAX_DEPTH) throw new PropertyFilterError(`Property filters may nest at most ${MAX_DEPTH} levels.`);
  if (Array.isArray(raw)) return { kind: 'group', op: 'AND', children: raw.map((item) => parseNode(item, defaultType, depth + 1, state)) };
  if (!isJsonObject(raw)) throw new PropertyFilterError('Properties are unparsable!');
  if ((raw.type === 'AND' || raw.type === 'OR') && Array.isArray(raw.values)) {
    return { kind: 'group', op: raw.type, children: raw.values.map((item) => parseNode(item, defaultType, depth + 1, state)) };
  }
  if (++state.leaves > MAX_LEAVES) throw new PropertyFilterError(`At most ${MAX_LEAVES} property filters are allowed.`);
  return parseLeaf(raw, defaultType, state.checked);
}

/**
 * The `properties` query parameter: a JSON list of filters (AND-ed) or a `{type: AND|OR, values}`
 * group. Absent or empty → null. Leaves without a type get `defaultType` (PostHog: `event`). Each type, operator and
 * element key is checked, unless `checked` is false: a stored cohort's definition may hold parts this service does not
 * read (behavioural ones), which its compilers match to nobody instead of refusing the whole query.
 */
export function parsePropertyFilters(raw: unknown, defaultType: string, { checked = true } = {}): PropertyNode | null {
  const text = queryText(raw);
  if (text === undefined || text === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PropertyFilterError('Properties are unparsable!');
  }
  const node = parseNode(parsed, defaultType, 0, { leaves: 0, checked });
  return node.kind === 'group' && node.children.length === 0 ? null : node;
}

/** Cohort ids a filter tree refers to (`{type: "cohort", value: <id>}`), for loading before translation. */
export function cohortIdsOf(node: PropertyNode | null): number[] {
  if (!node) return [];
  if (node.kind === 'group') return node.children.flatMap(cohortIdsOf);
  if (node.type !== 'cohort') return [];
  const id = Number(node.value);
  return Number.isInteger(id) && id > 0 && id <= 2_147_483_647 ? [id] : [];
}
