import { isJsonObject } from '../../common/json/json-object';
import { parseId } from '../../common/validation/patterns';

/** Leaf filter types that need events, which flags cannot evaluate. */
const BEHAVIOURAL_TYPES = new Set(['behavioral', 'event']);

function leavesOf(node: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(node)) return node.flatMap(leavesOf);
  if (!isJsonObject(node)) return [];
  if (Array.isArray(node.values) && (node.type === 'AND' || node.type === 'OR')) return node.values.flatMap(leavesOf);
  return [node];
}

/** Every leaf of a cohort's property tree (`filters.properties`) and of its legacy `groups`. */
export function cohortLeaves(filters: Record<string, unknown>): Array<Record<string, unknown>> {
  const tree = leavesOf(filters.properties);
  const legacy = Array.isArray(filters.groups) ? filters.groups.filter(isJsonObject) : [];
  return [...tree, ...legacy.flatMap((group) => [group, ...leavesOf(group.properties)])];
}

/** A cohort defined by what people did (events, actions), directly on its own leaves. */
export function hasBehaviouralFilters(filters: Record<string, unknown>): boolean {
  return cohortLeaves(filters).some(
    (leaf) => (typeof leaf.type === 'string' && BEHAVIOURAL_TYPES.has(leaf.type)) || leaf.action_id !== undefined || leaf.event_id !== undefined,
  );
}

/** Cohorts this cohort refers to (`{type: "cohort", value: <id>}` leaves). */
export function nestedCohortIds(filters: Record<string, unknown>): number[] {
  return cohortLeaves(filters)
    .map((leaf) => (leaf.type === 'cohort' ? parseId(leaf.value) : null))
    .filter((id): id is number => id !== null);
}
