import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { parseId } from '../../common/validation/patterns';
import { isPropertyOperator, MEMBERSHIP_OPERATORS } from '../../kernel/property-operators';

/**
 * How a cohort's definition is stored in the `filters` column: the property tree PostHog keeps in
 * `filters.properties`, and/or the legacy `groups`. When both are present the tree wins, as in
 * PostHog's `Cohort.properties`.
 */
export interface StoredDefinition {
  properties?: unknown;
  groups?: unknown[];
  [extra: string]: unknown;
}

/** What a write sent; `undefined` means "not sent". */
export interface DefinitionInput {
  filters?: Record<string, unknown>;
  groups?: unknown[];
}

/** Leaves that need events; accepted in cohorts, refused in flags. */
const BEHAVIOURAL_LEAF_TYPES = new Set(['behavioral', 'event']);
const VALUE_OPTIONAL_OPERATORS = new Set(['is_set', 'is_not_set']);
/** Deeper AND/OR trees are refused; PostHog's UI builds two levels. */
export const MAX_TREE_DEPTH = 10;

function invalid(detail: string, attr: 'filters' | 'groups' = 'filters'): ApiError {
  return ApiError.validation(detail, attr);
}

/**
 * The stored definition after a write: whichever of `filters` and `groups` the write sent defines
 * the cohort (both sent: both kept, the tree wins); nothing sent keeps the current one.
 */
export function nextDefinition(current: StoredDefinition, input: DefinitionInput): StoredDefinition {
  if (input.filters === undefined && input.groups === undefined) return current;
  const next: StoredDefinition = {};
  if (input.filters !== undefined) next.properties = input.filters.properties;
  if (input.groups !== undefined) next.groups = input.groups;
  return next;
}

/** The shape rules for a dynamic cohort's definition (static cohorts keep what they are given). */
export function checkDefinition(input: DefinitionInput): void {
  if (input.filters !== undefined) {
    if (!('properties' in input.filters)) throw invalid("Must contain a 'properties' key with type and values");
    const root = input.filters.properties;
    if (!isGroup(root)) throw invalid('Filters are not valid (properties must be a group with type AND or OR and a list of values)');
    checkNode(root, 0, 'filters');
  }
  if (input.groups !== undefined) input.groups.forEach(checkLegacyGroup);
}

function isGroup(node: unknown): node is { type: 'AND' | 'OR'; values: unknown } {
  return isJsonObject(node) && (node.type === 'AND' || node.type === 'OR');
}

function checkNode(node: unknown, depth: number, attr: 'filters' | 'groups'): void {
  if (!isJsonObject(node)) throw invalid('Filters are not valid (every value must be a property filter or a group)', attr);
  if (!isGroup(node)) return checkLeaf(node, attr);
  if (depth >= MAX_TREE_DEPTH) throw invalid(`Filters are not valid (groups nest at most ${MAX_TREE_DEPTH} deep)`, attr);
  if (!Array.isArray(node.values)) throw invalid('Filters are not valid (values must be a list)', attr);
  for (const child of node.values) checkNode(child, depth + 1, attr);
}

function checkLeaf(leaf: Record<string, unknown>, attr: 'filters' | 'groups'): void {
  if (leaf.negation !== undefined && typeof leaf.negation !== 'boolean') throw invalid('Filters are not valid (negation must be a boolean)', attr);
  if (leaf.type === 'cohort') {
    if (leaf.key !== 'id' || parseId(leaf.value) === null) {
      throw invalid('Filters are not valid (a cohort filter is {"key": "id", "type": "cohort", "value": <cohort id>})', attr);
    }
    return;
  }
  if (typeof leaf.type === 'string' && BEHAVIOURAL_LEAF_TYPES.has(leaf.type)) return;
  if (leaf.type !== 'person') throw invalid(`Filters are not valid (cohorts can only use person, cohort and behavioral filters, not ${JSON.stringify(leaf.type ?? null)})`, attr);
  checkPersonLeaf(leaf, attr);
}

/** PostHog's person filter: a key, a known operator (absent means `exact`), a value unless is_set/is_not_set. */
function checkPersonLeaf(leaf: Record<string, unknown>, attr: 'filters' | 'groups'): void {
  if (typeof leaf.key !== 'string' || leaf.key === '') throw invalid('Filters are not valid (every property filter needs a key)', attr);
  const operator = leaf.operator ?? 'exact';
  if (!isPropertyOperator(operator) || MEMBERSHIP_OPERATORS.has(operator) || operator === 'flag_evaluates_to') {
    throw invalid(`Filters are not valid (invalid operator ${JSON.stringify(operator)})`, attr);
  }
  if ((leaf.value === undefined || leaf.value === null) && !VALUE_OPTIONAL_OPERATORS.has(operator)) {
    throw invalid('Missing required keys for person filter: value', attr);
  }
}

/** `{properties: [leaf…]}` (AND-ed) or a behavioural `{action_id | event_id, days}` group. */
function checkLegacyGroup(group: unknown): void {
  if (!isJsonObject(group)) throw invalid('Groups are not valid (each group must be an object)', 'groups');
  const { properties } = group;
  if (properties === undefined || properties === null) return;
  if (!Array.isArray(properties)) throw invalid('Groups are not valid (properties must be a list)', 'groups');
  for (const leaf of properties) {
    if (!isJsonObject(leaf) || isGroup(leaf)) throw invalid('Groups are not valid (properties must be property filters)', 'groups');
    // Legacy groups predate the `type` field on person filters.
    checkLeaf(leaf.type === undefined ? { ...leaf, type: 'person' } : leaf, 'groups');
  }
}

/** PostHog's serializer: `filters` is the stored tree, or the legacy groups as an OR of ANDs. */
export function servedFilters(stored: StoredDefinition): { properties: unknown } {
  if (stored.properties !== undefined) return { properties: stored.properties };
  return { properties: legacyTree(stored.groups) };
}

export function servedGroups(stored: StoredDefinition): unknown[] {
  return Array.isArray(stored.groups) ? stored.groups : [];
}

function legacyTree(groups: unknown): Record<string, unknown> {
  const values = (Array.isArray(groups) ? groups : []).filter(isJsonObject).flatMap((group) => {
    if (Array.isArray(group.properties) && group.properties.length > 0) return [{ type: 'AND', values: group.properties }];
    const action = group.action_id ?? group.event_id;
    if (action === undefined) return [];
    const behavioural = {
      key: action,
      type: 'behavioral',
      value: 'performed_event',
      event_type: group.action_id !== undefined ? 'actions' : 'events',
      time_value: group.days ?? null,
      time_interval: 'day',
    };
    return [{ type: 'AND', values: [behavioural] }];
  });
  // An empty property group serialises as `{}` in PostHog.
  return values.length === 0 ? {} : { type: 'OR', values };
}
