import { queryText } from '../../common/http/query-values';
import { isJsonObject } from '../../common/json/json-object';

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

/** Bounds that keep one request from producing an unbounded query. */
const MAX_DEPTH = 5;
const MAX_LEAVES = 50;

function parseLeaf(raw: Record<string, unknown>, defaultType: string): PropertyLeaf {
  if (typeof raw.key !== 'string' && typeof raw.key !== 'number') throw new PropertyFilterError('Property filter is missing a key.');
  const operator = raw.operator === undefined || raw.operator === null ? 'exact' : raw.operator;
  if (typeof operator !== 'string') throw new PropertyFilterError('Property filter operator must be a string.');
  const type = raw.type === undefined || raw.type === null ? defaultType : raw.type;
  if (typeof type !== 'string') throw new PropertyFilterError('Property filter type must be a string.');
  const leaf: PropertyLeaf = { kind: 'leaf', key: String(raw.key), value: raw.value, operator, type, negation: raw.negation === true };
  const groupTypeIndex = Number(raw.group_type_index);
  if (type === 'group' && Number.isInteger(groupTypeIndex) && groupTypeIndex >= 0 && groupTypeIndex <= 4) leaf.groupTypeIndex = groupTypeIndex;
  return leaf;
}

function parseNode(raw: unknown, defaultType: string, depth: number, count: { leaves: number }): PropertyNode {
  if (depth > MAX_DEPTH) throw new PropertyFilterError(`Property filters may nest at most ${MAX_DEPTH} levels.`);
  if (Array.isArray(raw)) return { kind: 'group', op: 'AND', children: raw.map((item) => parseNode(item, defaultType, depth + 1, count)) };
  if (!isJsonObject(raw)) throw new PropertyFilterError('Properties are unparsable!');
  if ((raw.type === 'AND' || raw.type === 'OR') && Array.isArray(raw.values)) {
    return { kind: 'group', op: raw.type, children: raw.values.map((item) => parseNode(item, defaultType, depth + 1, count)) };
  }
  if (++count.leaves > MAX_LEAVES) throw new PropertyFilterError(`At most ${MAX_LEAVES} property filters are allowed.`);
  return parseLeaf(raw, defaultType);
}

/**
 * The `properties` query parameter: a JSON list of filters (AND-ed) or a `{type: AND|OR, values}`
 * group. Absent or empty → null. Leaves without a type get `defaultType` (PostHog: `event`).
 */
export function parsePropertyFilters(raw: unknown, defaultType: string): PropertyNode | null {
  const text = queryText(raw);
  if (text === undefined || text === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PropertyFilterError('Properties are unparsable!');
  }
  const node = parseNode(parsed, defaultType, 0, { leaves: 0 });
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
