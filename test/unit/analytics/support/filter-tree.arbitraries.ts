import fc from 'fast-check';
import { filterScalar, isoDateText, KEYS } from './property-filter.arbitraries';

/** Raw PostHog filter JSON (what `parsePropertyFilters` reads): leaves, AND/OR groups, cohorts, groups. */
export type RawFilter = Record<string, unknown> | RawFilter[];

const TEXT_VALUES = ['chrome', 'CHROME', 'Chrome Mobile', 'école', 'ÉCOLE', 'true', 'null', '', 'a%b', 'a_b', '%', '_', '\\', "it's", '"', 'line\nbreak',
  'rome', 'ch', 'e', '1', '12', '.5', '1.2', 'ü', 'x', '{"a": 1}', '[1, 2]'];
const NUMBER_VALUES = ['10', '9.99', '0', '-0', '0.1', '1e3', '9007199254740992', '-9007199254740992', '1718452800', 'ten', ' 5 ', '0x10', ''];
const DATE_VALUES = ['-1d', '-30d', '-2w', '-3m', '-1y', '-12h', '1d', '2024-06-15', '2024-06-14T12:00:00Z', '2024-01-15T10:00:00Z', '2000-01-01',
  '2024-06-15T12:00:00.000Z', 'June 1, 2024', 'garbage', '-10000d'];
const VERSION_VALUES = ['1.2.3', '1.2', '1', 'v2.0.0-alpha', '1.2.3-beta.1', '0.2.3', '1.*', '1.2.*', '1.x', '99999999999999999999.0.0', 'garbage', '1.2.3.4'];

/** Regexes both dialects read alike (PostgreSQL's ARE and RE2), plus some RE2 refuses. */
const regexAtom = fc.oneof(
  fc.constantFrom('a', 'b', 'A', 'C', '1', 'é', '-', ' ', 'r', 'o', 'm', 'e', '\\.', '\\$', '\\(', '\\\\', '%', '_'),
  fc.constantFrom('[a-c]', '[^b]', '[A-Z]', '\\d', '(ab|ch)', '(o|O)'),
);
const regexPiece = fc.tuple(regexAtom, fc.constantFrom('', '', '', '*', '+', '?', '{1,2}')).map(([atom, q]) => atom + q);
const regexValue = fc.oneof(
  fc.tuple(fc.constantFrom('', '^'), fc.array(regexPiece, { minLength: 1, maxLength: 4 }), fc.constantFrom('', '$'))
    .map(([start, pieces, end]) => start + pieces.join('') + end),
  fc.constantFrom('(', '[a', 'a**', '\\', 'x{2,1}', '(?P<n>a'),
);

const scalarValue = fc.oneof(fc.constantFrom(...TEXT_VALUES), filterScalar, fc.integer({ min: -5, max: 120 }), fc.boolean(), fc.constant(null));
const listOrOne = <T>(one: fc.Arbitrary<T>) => fc.oneof({ arbitrary: one, weight: 3 }, { arbitrary: fc.array(one, { maxLength: 3 }), weight: 1 });

const VALUE_BY_FAMILY: Record<string, fc.Arbitrary<unknown>> = {
  text: listOrOne(scalarValue),
  boolean: listOrOne(fc.constantFrom(true, false, 'true', 'FALSE', 'True')),
  regex: regexValue,
  number: fc.oneof(fc.constantFrom(...NUMBER_VALUES), fc.integer({ min: -5, max: 120 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
  date: fc.oneof(fc.constantFrom(...DATE_VALUES), isoDateText, fc.integer()),
  version: fc.constantFrom(...VERSION_VALUES),
  none: fc.constant(undefined),
};

const OPERATORS: Array<[string, string]> = [
  ['exact', 'text'], ['exact', 'boolean'], ['is_not', 'text'], ['is_not', 'boolean'], ['is_set', 'none'], ['is_not_set', 'none'],
  ['icontains', 'text'], ['not_icontains', 'text'], ['icontains_multi', 'text'], ['not_icontains_multi', 'text'],
  ['starts_with', 'text'], ['not_starts_with', 'text'], ['ends_with', 'text'], ['not_ends_with', 'text'],
  ['regex', 'regex'], ['not_regex', 'regex'], ['gt', 'number'], ['gte', 'number'], ['lt', 'number'], ['lte', 'number'],
  ['is_date_before', 'date'], ['is_date_after', 'date'], ['is_date_exact', 'date'],
  ['semver_eq', 'version'], ['semver_neq', 'version'], ['semver_gt', 'version'], ['semver_gte', 'version'], ['semver_lt', 'version'],
  ['semver_lte', 'version'], ['semver_tilde', 'version'], ['semver_caret', 'version'], ['semver_wildcard', 'version'],
];

const operatorAndValue = fc
  .constantFrom(...OPERATORS)
  .chain(([operator, family]) => fc.tuple(fc.constant(operator), fc.oneof({ arbitrary: VALUE_BY_FAMILY[family], weight: 6 }, { arbitrary: scalarValue, weight: 1 })));

/** Leaf types: the given ones, with the group type index group leaves carry. */
function propertyLeaf(types: string[]): fc.Arbitrary<RawFilter> {
  return fc
    .record({ key: fc.constantFrom(...KEYS, 'missing'), type: fc.constantFrom(...types), index: fc.constantFrom(0, 1, 3), ov: operatorAndValue, negation: fc.boolean() })
    .map(({ key, type, index, ov: [operator, value], negation }) => ({
      key, operator, value, negation, ...(type === 'default' ? {} : { type }), ...(type === 'group' ? { group_type_index: index } : {}),
    }));
}

const cohortLeaf: fc.Arbitrary<RawFilter> = fc.record({
  key: fc.constant('id'), type: fc.constant('cohort'), value: fc.constantFrom(1, 2, 3, 4, 5, 7, '2', 99),
  operator: fc.constantFrom('exact', 'in', 'not_in'), negation: fc.boolean(),
});

/** A tree of leaves: a list (AND) or an AND/OR group, at most `depth` groups deep. */
export function filterTree(leaf: fc.Arbitrary<RawFilter>, depth = 3): fc.Arbitrary<RawFilter> {
  const node = fc.letrec<{ node: RawFilter; group: RawFilter }>((tie) => ({
    node: fc.oneof({ depthSize: 'small', maxDepth: depth, withCrossShrink: true }, leaf, tie('group')),
    group: fc.record({ type: fc.constantFrom('AND', 'OR'), values: fc.array(tie('node'), { maxLength: 3 }) }),
  })).node;
  return fc.oneof(fc.array(node, { minLength: 1, maxLength: 3 }), fc.record({ type: fc.constantFrom('AND', 'OR'), values: fc.array(node, { minLength: 1, maxLength: 3 }) }));
}

/** Filters of an insight or list: event, person and group properties, cohorts. */
export const eventFilters = filterTree(fc.oneof({ arbitrary: propertyLeaf(['event', 'event', 'person', 'group']), weight: 6 }, { arbitrary: cohortLeaf, weight: 1 }));

/** A dynamic cohort's properties: person leaves (typed or not), other types that match nobody, cohorts. */
export const cohortFilters = filterTree(
  fc.oneof({ arbitrary: propertyLeaf(['default', 'person', 'person']), weight: 6 }, { arbitrary: propertyLeaf(['event', 'behavioral']), weight: 1 }, { arbitrary: cohortLeaf, weight: 1 }),
  2,
);
