// The SQL follows the flag matcher, so it reads operators and values with the matcher's own pieces.
import { asNumber, asText, NEGATED, regexFinds } from '../../kernel/property-match';
import { filterDate } from '../../kernel/dates';
import { parseVersion, versionRange, Version } from '../../kernel/semver';
import { POSITIVE_OPERATORS, PropertyFilterError, PropertyLeaf, PropertyNode, parsePropertyFilters } from '../../kernel/property-filters';
import { pgChainDialect } from './chain-dialect-sql';
import { elementFilterSql } from '../../kernel/element-sql';
import { likePattern } from '../../database/like-pattern';
import { SqlParams } from '../../database/sql-params';

/** A cohort as membership needs it: static members are listed, dynamic ones are property trees. */
export interface CohortDefinition {
  isStatic: boolean;
  filters: Record<string, unknown>;
}

export interface FilterSqlContext {
  /** SQL expressions (trusted, never user input) of the jsonb holding each property type. */
  columns: Partial<Record<'event' | 'person', string>>;
  /** SQL text of the row's elements chain, where element filters are supported. */
  elementsChain?: string;
  /** SQL expression of a group's properties by group type index, where group filters are supported. */
  groupColumn?: (groupTypeIndex: number) => string;
  /** SQL expression of the row's person id, for cohort membership; cohorts are refused without it. */
  personId?: string;
  now: Date;
  cohorts?: ReadonlyMap<number, CohortDefinition>;
  /**
   * `exact`/`is_not` compare text case-sensitively, as PostHog's insights and its events and persons lists do,
   * instead of ignoring case, as its flags do (the matcher this compiler otherwise follows). Default false.
   * Booleans compare by truthiness either way.
   */
  caseSensitiveExact?: boolean;
}

const TRUE = 'TRUE';
const FALSE = 'FALSE';
// JavaScript's Number() on decimal text, bounded so the numeric cast can never fail (exponent ≤ 999).
const NUMERIC_TEXT = String.raw`'^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?\s*$'`;
const BOOLEAN_TEXT = /^(true|false)$/i;
const COMPARISONS: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
const SEMVER_COMPARISONS: Record<string, string> = { semver_eq: '=', semver_neq: '<>', semver_gt: '>', semver_gte: '>=', semver_lt: '<', semver_lte: '<=' };

/** One property of one row: the jsonb value, its text form (`asText`) and presence, all with the key bound. */
interface Target {
  value: string;
  text: string;
  present: string;
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/** [major, minor, patch, release flag]: a pre-release sorts before its release (identifiers are not compared). */
function versionKey(version: Version): number[] {
  return [...version.core, version.pre.length === 0 ? 1 : 0];
}

function exactSql(t: Target, value: unknown, p: SqlParams, caseSensitive: boolean): string {
  const candidates = listOf(value);
  if (candidates.length === 0) return FALSE;
  // The Rust matcher compares booleans (and "true"/"false") by truthiness, not by text.
  if (candidates.every((c) => typeof c === 'boolean' || (typeof c === 'string' && BOOLEAN_TEXT.test(c)))) {
    const wanted = new Set(candidates.map((c) => c === true || String(c).toLowerCase() === 'true'));
    if (wanted.size === 2) return TRUE;
    return `((lower(${t.text}) = 'true') = ${p.add([...wanted][0])})`;
  }
  if (caseSensitive) return `(${t.text} = ANY(${p.add(candidates.map((c) => asText(c)))}::text[]))`;
  return `(lower(${t.text}) = ANY(${p.add(candidates.map((c) => asText(c).toLowerCase()))}::text[]))`;
}

function textSql(operator: string, t: Target, value: unknown, p: SqlParams): string {
  const needles = listOf(value).map((v) => asText(v));
  if (operator === 'icontains') return `(${t.text} ILIKE ${p.add(likePattern(needles[0] ?? '', '%', '%'))})`;
  const [prefix, suffix] = operator === 'starts_with' ? ['', '%'] : operator === 'ends_with' ? ['%', ''] : ['%', '%'];
  const patterns = needles.map((n) => likePattern(n, prefix, suffix));
  return patterns.length === 0 ? FALSE : `(${t.text} ILIKE ANY(${p.add(patterns)}::text[]))`;
}

function numberSql(operator: string, t: Target, value: unknown, p: SqlParams): string {
  const expected = asNumber(value);
  if (expected === null) return FALSE;
  const actual = `(CASE WHEN jsonb_typeof(${t.value}) = 'number' THEN (${t.text})::numeric
    WHEN jsonb_typeof(${t.value}) = 'string' AND length(${t.text}) < 1000 AND ${t.text} ~ ${NUMERIC_TEXT} THEN (${t.text})::numeric END)`;
  return `(${actual} ${COMPARISONS[operator]} ${p.add(String(expected))}::numeric)`;
}

function dateSql(operator: string, t: Target, value: unknown, p: SqlParams, now: Date): string {
  const expected = filterDate(value, now);
  if (expected === null) return FALSE;
  const op = operator === 'is_date_before' ? '<' : operator === 'is_date_after' ? '>' : '=';
  return `(property_epoch_ms(${t.value}) ${op} ${p.add(expected)}::float8)`;
}

function semverSql(operator: string, t: Target, value: unknown, p: SqlParams): string {
  const actual = `property_semver(${t.value})`;
  if (operator in SEMVER_COMPARISONS) {
    const expected = parseVersion(value);
    return expected ? `(${actual} ${SEMVER_COMPARISONS[operator]} ${p.add(versionKey(expected))}::numeric[])` : FALSE;
  }
  const range = versionRange(operator as 'semver_tilde', value);
  if (!range) return FALSE;
  return `(${actual} >= ${p.add(versionKey(range[0]))}::numeric[] AND ${actual} < ${p.add(versionKey(range[1]))}::numeric[])`;
}

/** The condition on a present, non-null-checked value (positive operators only). */
function presentSql(operator: string, t: Target, value: unknown, p: SqlParams, options: ConditionOptions): string {
  if (operator === 'exact') return exactSql(t, value, p, options.caseSensitiveExact);
  if (operator === 'regex') {
    // Invalid patterns match nothing (Rust matcher); RE2 validity is checked here, PostgreSQL's at run time.
    return regexFinds(value, '') === null ? FALSE : `(${t.text} ~ ${p.add(asText(value))})`;
  }
  if (operator in COMPARISONS) return numberSql(operator, t, value, p);
  if (operator.startsWith('is_date_')) return dateSql(operator, t, value, p, options.now);
  if (operator.startsWith('semver_')) return semverSql(operator, t, value, p);
  return textSql(operator, t, value, p);
}

/** What a condition reads besides the property: the clock for relative dates, the case rule for `exact`. */
export interface ConditionOptions {
  now: Date;
  caseSensitiveExact: boolean;
}

/** A person or event property condition, with the matcher's rules for missing keys and nulls. */
function propertySql(leaf: PropertyLeaf, column: string, p: SqlParams, options: ConditionOptions): string {
  const key = `${p.add(leaf.key)}::text`;
  const t: Target = { value: `(${column} -> ${key})`, text: `coalesce(${column} ->> ${key}, 'null')`, present: `(${column} ? ${key})` };
  const { operator } = leaf;
  if (operator === 'is_set') return t.present;
  if (operator === 'is_not_set') return `(NOT ${t.present})`;
  // Own keys only: `in` would take Object.prototype's names (`constructor`) for negated operators.
  if (Object.hasOwn(NEGATED, operator)) {
    const positive = NEGATED[operator];
    if (positive === 'regex' && regexFinds(leaf.value, '') === null) return `(NOT ${t.present} OR jsonb_typeof(${t.value}) = 'null')`;
    return `(NOT ${t.present} OR jsonb_typeof(${t.value}) = 'null' OR NOT coalesce(${presentSql(positive, t, leaf.value, p, options)}, FALSE))`;
  }
  if (!POSITIVE_OPERATORS.has(operator)) throw new PropertyFilterError(`Invalid operator: ${operator}`);
  return `(${t.present} AND ${presentSql(operator, t, leaf.value, p, options)})`;
}

function cohortSql(leaf: PropertyLeaf, ctx: FilterSqlContext, p: SqlParams, visiting: Set<number>): string {
  if (!ctx.personId) throw new PropertyFilterError('Cohort filters are not supported here.');
  if (leaf.operator !== 'exact' && leaf.operator !== 'in' && leaf.operator !== 'not_in') throw new PropertyFilterError(`Invalid operator: ${leaf.operator}`);
  const id = Number(leaf.value);
  const cohort = ctx.cohorts?.get(id);
  let member = FALSE;
  if (cohort?.isStatic) member = `EXISTS (SELECT 1 FROM cohort_person cp WHERE cp.cohort_id = ${p.add(id)} AND cp.person_id = ${ctx.personId})`;
  else if (cohort && !visiting.has(id)) member = dynamicCohortSql(cohort, ctx, p, new Set([...visiting, id]));
  return leaf.operator === 'not_in' ? `(NOT ${member})` : member;
}

/** A property-defined cohort is its property tree over the person; behavioural parts match nobody here. */
function dynamicCohortSql(cohort: CohortDefinition, ctx: FilterSqlContext, p: SqlParams, visiting: Set<number>): string {
  let tree: PropertyNode | null;
  try {
    tree = parsePropertyFilters(JSON.stringify(cohort.filters.properties ?? []), 'person', { checked: false });
  } catch {
    return FALSE;
  }
  const personOnly: FilterSqlContext = { ...ctx, columns: { person: ctx.columns.person }, elementsChain: undefined };
  return tree ? nodeSql(tree, personOnly, p, visiting, true) : FALSE;
}

/** The filter types a context can read, for the error that names them. */
function supportedTypes(ctx: FilterSqlContext): string[] {
  const types = Object.keys(ctx.columns);
  if (ctx.groupColumn) types.push('group');
  if (ctx.personId) types.push('cohort');
  if (ctx.elementsChain) types.push('element');
  return types;
}

function leafSql(leaf: PropertyLeaf, ctx: FilterSqlContext, p: SqlParams, visiting: Set<number>, lenient: boolean): string {
  if (leaf.type === 'cohort') return cohortSql(leaf, ctx, p, visiting);
  if (leaf.type === 'element' && ctx.elementsChain) return elementFilterSql(leaf, ctx.elementsChain, pgChainDialect(p));
  if (leaf.operator === 'in' || leaf.operator === 'not_in') throw new PropertyFilterError(`Invalid operator: ${leaf.operator}`);
  let column = leaf.type === 'event' || leaf.type === 'person' ? ctx.columns[leaf.type] : undefined;
  if (leaf.type === 'group' && ctx.groupColumn && leaf.groupTypeIndex !== undefined) column = ctx.groupColumn(leaf.groupTypeIndex);
  if (!column) {
    if (lenient) return FALSE;
    throw new PropertyFilterError(`Property filters of type "${leaf.type}" are not supported here: use ${supportedTypes(ctx).join(', ')} (insights read every type).`);
  }
  return propertySql(leaf, column, p, { now: ctx.now, caseSensitiveExact: ctx.caseSensitiveExact ?? false });
}

function nodeSql(node: PropertyNode, ctx: FilterSqlContext, p: SqlParams, visiting: Set<number>, lenient = false): string {
  if (node.kind === 'group') {
    if (node.children.length === 0) return TRUE;
    return `(${node.children.map((child) => nodeSql(child, ctx, p, visiting, lenient)).join(` ${node.op} `)})`;
  }
  const condition = `coalesce(${leafSql(node, ctx, p, visiting, lenient)}, FALSE)`;
  return node.negation ? `(NOT ${condition})` : condition;
}

/**
 * PostHog property filters as one SQL condition over jsonb columns, with every key and value bound
 * in `params`, after the query's own. Semantics follow the flag matcher (PostHog's flags service);
 * unsupported types and operators throw PropertyFilterError.
 */
export function propertyFiltersToSql(node: PropertyNode | null, ctx: FilterSqlContext, params: SqlParams): string {
  return node ? nodeSql(node, ctx, params, new Set()) : TRUE;
}

/** Whether a tree reads person properties or cohorts (events then need the person joined). */
export function needsPerson(node: PropertyNode | null): boolean {
  if (!node) return false;
  if (node.kind === 'group') return node.children.some(needsPerson);
  return node.type === 'person' || node.type === 'cohort';
}
