import { asText, isBooleanFilter } from '../../../../src/kernel/property-match';
import type { CohortDefinition } from '../../../../src/modules/events/property-filter-sql';
import { parsePropertyFilters, PropertyFilterError, PropertyNode } from '../../../../src/kernel/property-filters';
import type { FilterRow } from './filter-backends';
import type { RawFilter } from './filter-tree.arbitraries';
import { Json, writtenDifferently } from './property-filter.arbitraries';

/** Operators that compare the property's text, where an object's or list's text differs between the stores. */
const TEXT_READING = new Set(['exact', 'is_not', 'regex', 'not_regex', 'icontains', 'not_icontains', 'icontains_multi', 'not_icontains_multi',
  'starts_with', 'not_starts_with', 'ends_with', 'not_ends_with']);

function valueOf(row: FilterRow, type: string, key: string, groupTypeIndex?: number): Json | undefined {
  const source = type === 'event' ? row.event : type === 'person' ? row.person : groupTypeIndex !== undefined && groupTypeIndex <= 1 ? row.groups[groupTypeIndex] : null;
  return source && Object.hasOwn(source, key) ? source[key] : undefined;
}

/**
 * Rows whose answer may differ for the one known reason, and only that: a text-comparing leaf (in the tree or
 * in a dynamic cohort it uses) reads an object or list with members, which the stores write differently.
 */
export function excludedRows(node: PropertyNode | null, cohorts: ReadonlyMap<number, CohortDefinition>, rows: readonly FilterRow[]): Set<number> {
  const excluded = new Set<number>();
  const visit = (n: PropertyNode | null, visiting: Set<number>, personOnly: boolean): void => {
    if (!n) return;
    if (n.kind === 'group') return n.children.forEach((child) => visit(child, visiting, personOnly));
    if (n.type === 'cohort') {
      const id = Number(n.value);
      const cohort = cohorts.get(id);
      if (!cohort || cohort.isStatic || visiting.has(id)) return;
      let tree: PropertyNode | null = null;
      try {
        tree = parsePropertyFilters(JSON.stringify(cohort.filters.properties ?? []), 'person');
      } catch {
        return;
      }
      return visit(tree, new Set([...visiting, id]), true);
    }
    if (!TEXT_READING.has(n.operator) || (personOnly && n.type === 'event')) return;
    if ((n.operator === 'exact' || n.operator === 'is_not') && isBooleanFilter(n.value)) return;
    for (const row of rows) if (writtenDifferently(valueOf(row, n.type, n.key, n.groupTypeIndex))) excluded.add(row.id);
  };
  visit(node, new Set(), false);
  return excluded;
}

/** A compile that may refuse the filter: the ids, or the refusal's detail. */
export async function settle(run: () => Promise<number[]>): Promise<number[] | string> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PropertyFilterError) return `refused: ${error.detail}`;
    throw error;
  }
}

export function without(result: number[] | string, excluded: Set<number>): number[] | string {
  return typeof result === 'string' ? result : result.filter((id) => !excluded.has(id));
}

// RE2 and PostgreSQL's ARE both read a backslash before ASCII punctuation as that character.
const escapeRegex = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);

/**
 * The case-sensitive meaning in terms the PostgreSQL compiler has: `exact [a, b]` is `regex ^a$ OR regex ^b$`
 * (present, text equal: regexes keep case) and `is_not [a, b]` is `not_regex ^a$ AND not_regex ^b$`; negated,
 * each side's dual with negated leaves (groups carry no negation). Booleans and empty lists keep their rule.
 */
export function caseSensitiveReference(raw: unknown): unknown {
  if (Array.isArray(raw)) return raw.map(caseSensitiveReference);
  if (raw === null || typeof raw !== 'object') return raw;
  const node = raw as Record<string, unknown>;
  if (Array.isArray(node.values)) return { ...node, values: node.values.map(caseSensitiveReference) };
  const operator = node.operator ?? 'exact';
  const candidates = Array.isArray(node.value) ? node.value : [node.value];
  if (node.type === 'cohort' || (operator !== 'exact' && operator !== 'is_not') || candidates.length === 0 || isBooleanFilter(node.value)) return raw;
  const regexOperator = operator === 'exact' ? 'regex' : 'not_regex';
  const values = candidates.map((c) => ({ ...node, operator: regexOperator, value: `^${escapeRegex(asText(c))}$` }));
  const any = (operator === 'exact') !== (node.negation === true);
  return { type: any ? 'OR' : 'AND', values };
}

export type { RawFilter };
