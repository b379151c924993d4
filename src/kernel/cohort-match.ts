import type { PropertyFilter } from './flag-filters';
import { compileProperty, PropertyTest } from './compiled-property';

/** What evaluation knows of one live cohort: its id, its kind and its stored filters. */
export interface CohortDefinition {
  id: number;
  isStatic: boolean;
  /** `{properties: {type, values}}`, legacy `{groups: [{properties: [...]}]}`, or both (properties win). */
  filters: Record<string, unknown>;
}

export interface CohortContext {
  /** Live cohorts of the project. */
  cohorts: ReadonlyMap<number, CohortDefinition>;
  /** Static cohort ids the person belongs to. */
  staticMemberships: ReadonlySet<number>;
  now: Date;
}

/** Cohorts referring to cohorts: deeper chains than this are treated as broken definitions. */
export const MAX_COHORT_NESTING = 20;
/** AND/OR groups inside one definition; the API refuses deeper trees, stored JSON is not trusted. */
const MAX_GROUP_DEPTH = 20;

/** Thrown inside the walk when a definition cannot be decided (cycle, too deep); never escapes. */
class Unresolvable extends Error {}

interface Walk {
  properties: Record<string, unknown>;
  context: CohortContext;
  /** Cohorts on the current chain of references, to notice cycles. */
  path: Set<number>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Whether a person with `properties` is in cohort `cohortId`. Unknown or deleted cohort → false;
 * static → the membership set; dynamic → its property groups. A cycle of
 * cohort references or nesting deeper than 20 makes the whole answer false.
 */
export function inCohort(cohortId: number, properties: Record<string, unknown>, context: CohortContext): boolean {
  try {
    return cohortMatches(cohortId, { properties, context, path: new Set() });
  } catch (error) {
    if (error instanceof Unresolvable) return false;
    throw error;
  }
}

function cohortMatches(cohortId: number, walk: Walk): boolean {
  const cohort = walk.context.cohorts.get(cohortId);
  if (!cohort) return false;
  if (cohort.isStatic) return walk.context.staticMemberships.has(cohortId);
  if (walk.path.has(cohortId) || walk.path.size > MAX_COHORT_NESTING) throw new Unresolvable();
  walk.path.add(cohortId);
  try {
    return definitionMatches(isObject(cohort.filters) ? cohort.filters : {}, walk);
  } finally {
    walk.path.delete(cohortId);
  }
}

/** PostHog's `Cohort.properties`: the property tree when there is one, else the legacy groups. */
function definitionMatches(filters: Record<string, unknown>, walk: Walk): boolean {
  if (filters.properties !== undefined) return nodeMatches(filters.properties, walk, 0);
  if (!Array.isArray(filters.groups)) return true; // nothing to satisfy, as PostHog's empty group
  const groups = filters.groups.filter((group) => !isObject(group) || !isEmptyLegacyGroup(group));
  return groups.length === 0 || groups.some((group) => legacyGroupMatches(group, walk));
}

/** A legacy group with neither properties nor an action/event is skipped, as PostHog does. */
function isEmptyLegacyGroup(group: Record<string, unknown>): boolean {
  const properties = group.properties;
  const hasProperties = Array.isArray(properties) ? properties.length > 0 : properties !== undefined && properties !== null;
  return !hasProperties && group.action_id === undefined && group.event_id === undefined;
}

/** One legacy group: its properties AND-ed; groups on actions or events are behavioural, never matched here. */
function legacyGroupMatches(group: unknown, walk: Walk): boolean {
  if (!isObject(group) || !Array.isArray(group.properties)) return false;
  if (group.action_id !== undefined || group.event_id !== undefined) return false;
  return group.properties.every((leaf) => nodeMatches(leaf, walk, 1));
}

function nodeMatches(node: unknown, walk: Walk, depth: number): boolean {
  if (!isObject(node)) return false;
  if (node.type === 'AND' || node.type === 'OR') {
    if (depth >= MAX_GROUP_DEPTH) throw new Unresolvable();
    if (!Array.isArray(node.values)) return false;
    const test = (child: unknown) => nodeMatches(child, walk, depth + 1);
    // An empty group is a no-op that always matches (PostHog SDKs' `match_property_group`).
    return node.type === 'AND' ? node.values.every(test) : node.values.length === 0 || node.values.some(test);
  }
  if (Object.keys(node).length === 0) return true; // `{}` is how PostHog serialises an empty group
  return leafMatches(node, walk);
}

/** Positive and negated leaves alike; leaves that need events (or are malformed) never match. */
function leafMatches(leaf: Record<string, unknown>, walk: Walk): boolean {
  let matched: boolean;
  if (leaf.type === 'cohort') {
    const id = cohortId(leaf.value);
    if (id === null) return false;
    matched = cohortMatches(id, walk);
    if (leaf.operator === 'not_in') matched = !matched;
  } else if (leaf.type === 'person' || leaf.type === undefined) {
    const test = personTest(leaf);
    if (!test) return false;
    matched = test(walk.properties, walk.context.now);
  } else {
    return false;
  }
  return leaf.negation === true ? !matched : matched;
}

function cohortId(value: unknown): number | null {
  const id = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** Adds to `into` the person property keys a cohort's definition reads (nested cohorts are definitions of their own). */
export function cohortPropertyKeys(cohort: CohortDefinition, into: Set<string>): void {
  const filters = isObject(cohort.filters) ? cohort.filters : {};
  const collect = (node: unknown, depth: number): void => {
    if (depth > MAX_GROUP_DEPTH || !isObject(node)) return;
    if (Array.isArray(node.values)) node.values.forEach((child) => collect(child, depth + 1));
    if (Array.isArray(node.properties)) node.properties.forEach((child) => collect(child, depth + 1));
    if (typeof node.key === 'string' && (node.type === 'person' || node.type === undefined)) into.add(node.key);
  };
  collect(filters.properties, 0);
  if (Array.isArray(filters.groups)) filters.groups.forEach((group) => collect(group, 0));
}

/**
 * Person-property tests of cohort leaves (null: malformed), compiled on first use and kept as long as
 * the leaf: a snapshot's cohort definitions are compiled once, like its flags' conditions.
 */
const personTests = new WeakMap<Record<string, unknown>, PropertyTest | null>();

function personTest(leaf: Record<string, unknown>): PropertyTest | null {
  let test = personTests.get(leaf);
  if (test === undefined) {
    const filter = personFilter(leaf);
    test = filter ? compileProperty(filter) : null;
    personTests.set(leaf, test);
  }
  return test;
}

/** A leaf compileProperty can take: string key, string (or absent) operator. */
function personFilter(leaf: Record<string, unknown>): PropertyFilter | null {
  const { key, operator } = leaf;
  if (typeof key !== 'string') return null;
  if (operator !== undefined && operator !== null && typeof operator !== 'string') return null;
  return { key, value: leaf.value, operator: operator ?? null, type: 'person' };
}
