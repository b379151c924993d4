import { NEGATED, regexFinds } from '../../../kernel/property-match';
import { needsPerson, type CohortDefinition } from '../../events/property-filter-sql';
import { POSITIVE_OPERATORS, PropertyFilterError, PropertyLeaf, PropertyNode, parsePropertyFilters } from '../../../kernel/property-filters';
import type { ChParams } from '../engine/ch-sql';
import { elementFilterSql } from '../../../kernel/element-sql';
import { chChainDialect } from './chain-dialect.ch';
import { sessionFilterSql } from './session-filter.ch';
import { bindText } from './sql-text.ch';
import { FALSE, TRUE, needsJson, positiveSql } from './property-conditions.ch';
import { coldTarget, hotTarget, PropertyTarget } from './property-target.ch';
import type { HotColumn } from '../engine/schema/hot-properties';

export { needsPerson };
export type { CohortDefinition };

/** What the filter reads, as the PostgreSQL compiler's FilterSqlContext, in ClickHouse terms. */
export interface ChFilterContext {
  /** Trusted expressions of the String columns holding each property type's JSON object text. */
  columns: Partial<Record<'event' | 'person', string>>;
  /** Event properties with a column of their own: key → trusted expressions of its text and JSON null (see hot-properties.ts). */
  eventHotColumns?: ReadonlyMap<string, HotColumn>;
  /** A group's properties (JSON object text, `'{}'` when the row has no group) by group type index. */
  groupColumn?: (groupTypeIndex: number) => string;
  /** The row's person id, for cohort membership; cohorts are refused without it. */
  personId?: string;
  /** The row's elements chain, for element filters; refused without it. */
  elementsChain?: string;
  /** The row's session id (NULL or '' without one), for session filters; refused without it. */
  sessionId?: string;
  teamId: number;
  now: Date;
  cohorts?: ReadonlyMap<number, CohortDefinition>;
  /**
   * `exact`/`is_not` compare text case-sensitively (PostHog's insights) instead of ignoring case (PostHog's flags,
   * and this service's events and persons lists). Default false. Booleans compare by truthiness either way.
   */
  caseSensitiveExact?: boolean;
  /**
   * The row's person id and the live persons (a subquery with `id` and `properties`): when given, a part of the tree
   * that reads person properties alone is evaluated once per person, as the row's person being one of those it holds
   * for, instead of on every row joined to its person's properties. A trend filtered by a person property at 10 M
   * events joined every event to its person's properties and parsed them per event; per person it reads a set of ids.
   */
  personSet?: { personId: string; persons: string };
}

/** The column a leaf reads, or undefined when this context has none for its type. */
function columnOf(leaf: PropertyLeaf, ctx: ChFilterContext): string | undefined {
  if (leaf.type === 'event' || leaf.type === 'person') return ctx.columns[leaf.type];
  if (leaf.type === 'group' && ctx.groupColumn && leaf.groupTypeIndex !== undefined) return ctx.groupColumn(leaf.groupTypeIndex);
  return undefined;
}

/** A person, event or group property condition, with the matcher's rules for missing keys and nulls. */
function propertySql(leaf: PropertyLeaf, column: string, ctx: ChFilterContext, p: ChParams): string {
  const { operator } = leaf;
  const negated = Object.hasOwn(NEGATED, operator);
  const positive = negated ? NEGATED[operator] : operator;
  if (operator !== 'is_set' && operator !== 'is_not_set' && !negated && !POSITIVE_OPERATORS.has(operator)) {
    throw new PropertyFilterError(`Invalid operator: ${operator}`);
  }
  const hot = leaf.type === 'event' && !needsJson(positive) ? ctx.eventHotColumns?.get(leaf.key) : undefined;
  const t: PropertyTarget = hot ? hotTarget(hot) : coldTarget(column, bindText(p, leaf.key));
  if (operator === 'is_set') return t.present;
  if (operator === 'is_not_set') return `(NOT ${t.present})`;
  if (negated) {
    if (positive === 'regex' && regexFinds(leaf.value, '') === null) return t.absentOrNull;
    return `(${t.absentOrNull} OR NOT ${positiveSql(positive, t, leaf.value, p, optionsOf(ctx))})`;
  }
  return `(${positiveSql(operator, t, leaf.value, p, optionsOf(ctx))} AND ${t.present})`;
}

function optionsOf(ctx: ChFilterContext) {
  return { now: ctx.now, caseSensitiveExact: ctx.caseSensitiveExact ?? false };
}

function cohortSql(leaf: PropertyLeaf, ctx: ChFilterContext, p: ChParams, visiting: Set<number>): string {
  if (!ctx.personId) throw new PropertyFilterError('Cohort filters are not supported here.');
  if (leaf.operator !== 'exact' && leaf.operator !== 'in' && leaf.operator !== 'not_in') throw new PropertyFilterError(`Invalid operator: ${leaf.operator}`);
  const id = Number(leaf.value);
  const cohort = ctx.cohorts?.get(id);
  let member = FALSE;
  if (cohort?.isStatic) member = staticMemberSql(id, ctx.personId, ctx.teamId, p);
  else if (cohort && !visiting.has(id)) member = dynamicCohortSql(cohort, ctx, p, new Set([...visiting, id]));
  return leaf.operator === 'not_in' ? `(NOT ${member})` : member;
}

/** The person is a current member: cohort_person is versioned (ReplacingMergeTree), a removal a newer deleted row. */
function staticMemberSql(id: number, personId: string, teamId: number, p: ChParams): string {
  const members = `SELECT person_id FROM cohort_person WHERE team_id = ${p.add(teamId, 'Int64')} AND cohort_id = ${p.add(id, 'Int64')}
    GROUP BY person_id HAVING argMax(is_deleted, version) = 0`;
  return `ifNull(${personId} IN (${members}), 0)`;
}

/** A property-defined cohort is its property tree over the person; behavioural parts match nobody here. */
function dynamicCohortSql(cohort: CohortDefinition, ctx: ChFilterContext, p: ChParams, visiting: Set<number>): string {
  let tree: PropertyNode | null;
  try {
    tree = parsePropertyFilters(JSON.stringify(cohort.filters.properties ?? []), 'person', { checked: false });
  } catch {
    return FALSE;
  }
  const personOnly: ChFilterContext = { ...ctx, columns: { person: ctx.columns.person }, eventHotColumns: undefined };
  return tree ? nodeSql(tree, personOnly, p, visiting, true) : FALSE;
}

function leafSql(leaf: PropertyLeaf, ctx: ChFilterContext, p: ChParams, visiting: Set<number>, lenient: boolean): string {
  if (leaf.type === 'cohort') return cohortSql(leaf, ctx, p, visiting);
  if (leaf.type === 'element' && ctx.elementsChain) return elementFilterSql(leaf, ctx.elementsChain, chChainDialect(p));
  if (leaf.type === 'session' && ctx.sessionId) return sessionFilterSql(ctx.sessionId, ctx.teamId, propertySql(leaf, 'properties', ctx, p), p);
  if (leaf.operator === 'in' || leaf.operator === 'not_in') throw new PropertyFilterError(`Invalid operator: ${leaf.operator}`);
  const column = columnOf(leaf, ctx);
  if (!column) {
    if (lenient) return FALSE;
    throw new PropertyFilterError(`Property filters of type "${leaf.type}" are not supported here.`);
  }
  return propertySql(leaf, column, ctx, p);
}

function nodeSql(node: PropertyNode, ctx: ChFilterContext, p: ChParams, visiting: Set<number>, lenient = false): string {
  if (ctx.personSet && readsPersonsOnly(node)) return personSetSql(node, ctx.personSet, ctx, p, visiting, lenient);
  if (node.kind === 'group') {
    if (node.children.length === 0) return TRUE;
    return `(${node.children.map((child) => nodeSql(child, ctx, p, visiting, lenient)).join(` ${node.op} `)})`;
  }
  const condition = leafSql(node, ctx, p, visiting, lenient);
  return node.negation ? `(NOT ${condition})` : condition;
}

/** A tree of person-property conditions alone (and at least one). */
function readsPersonsOnly(node: PropertyNode): boolean {
  return node.kind === 'group' ? node.children.length > 0 && node.children.every(readsPersonsOnly) : node.type === 'person';
}

/**
 * What a person-property tree gives where the person has no properties (no person, or a deleted one): each
 * positive condition requires the key, each negated one and `is_not_set` hold without it (see propertySql).
 */
export function holdsWithoutProperties(node: PropertyNode): boolean {
  if (node.kind === 'group') return node.op === 'AND' ? node.children.every(holdsWithoutProperties) : node.children.some(holdsWithoutProperties);
  const holds = node.operator === 'is_not_set' || Object.hasOwn(NEGATED, node.operator);
  return node.negation ? !holds : holds;
}

/**
 * A person-property tree as membership of the row's person: in the persons it holds for, or, where it holds for a
 * person without properties, not in those it fails for. So a row whose person has no row among the live ones gets
 * what the tree gives on no properties, as the joined row's empty properties would.
 */
function personSetSql(node: PropertyNode, set: { personId: string; persons: string }, ctx: ChFilterContext, p: ChParams, visiting: Set<number>, lenient: boolean): string {
  const perPerson: ChFilterContext = { ...ctx, columns: { person: 'properties' }, eventHotColumns: undefined, personSet: undefined };
  const condition = nodeSql(node, perPerson, p, visiting, lenient);
  const holdsWithout = holdsWithoutProperties(node);
  const member = `ifNull(${set.personId} IN (SELECT id FROM ${set.persons} WHERE ${holdsWithout ? `NOT ${condition}` : condition}), 0)`;
  return holdsWithout ? `(NOT ${member})` : member;
}

/**
 * PostHog property filters as one ClickHouse condition (UInt8, never NULL) over JSON object text columns, with
 * every key and value bound in `params` after the query's own. The meaning is the PostgreSQL compiler's
 * (events/property-filter-sql.ts), operator for operator; unsupported types and operators throw
 * PropertyFilterError with the same details.
 */
export function propertyFiltersToClickHouse(node: PropertyNode | null, ctx: ChFilterContext, params: ChParams): string {
  return node ? nodeSql(node, ctx, params, new Set()) : TRUE;
}
