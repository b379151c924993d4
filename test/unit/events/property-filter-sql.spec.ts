import { SqlParams } from '../../../src/database/sql-params';
import { propertyFiltersToSql, needsPerson, FilterSqlContext } from '../../../src/modules/events/property-filter-sql';
import { cohortIdsOf, parsePropertyFilters, PropertyFilterError, PropertyNode } from '../../../src/kernel/property-filters';

const NOW = new Date('2026-01-10T00:00:00Z');
const ctx = (over: Partial<FilterSqlContext> = {}): FilterSqlContext => ({
  columns: { event: 'e.properties', person: 'p.properties' },
  personId: 'p.id',
  now: NOW,
  ...over,
});
/** The condition and what it binds, after two parameters of the query's own (so from `$3`). */
function toSql(node: PropertyNode | null, over: Partial<FilterSqlContext> = {}): { sql: string; params: unknown[] } {
  const params = new SqlParams();
  params.add('project');
  params.add('before');
  return { sql: propertyFiltersToSql(node, ctx(over), params), params: params.values.slice(2) };
}
const translate = (filters: unknown, over: Partial<FilterSqlContext> = {}, defaultType = 'event') =>
  toSql(parsePropertyFilters(JSON.stringify(filters), defaultType), over);

describe('parsePropertyFilters', () => {
  it('reads a JSON list as an AND group with PostHog defaults (exact, the given default type)', () => {
    expect(parsePropertyFilters('[{"key":"a","value":1}]', 'person')).toEqual({
      kind: 'group',
      op: 'AND',
      children: [{ kind: 'leaf', key: 'a', value: 1, operator: 'exact', type: 'person', negation: false }],
    });
  });

  it('reads {type, values} groups, takes the last of repeated parameters, and treats empty as none', () => {
    expect(parsePropertyFilters(['[]', '{"type":"OR","values":[{"key":"a","operator":"is_set"}]}'], 'event')).toMatchObject({
      kind: 'group',
      op: 'OR',
      children: [{ key: 'a', operator: 'is_set' }],
    });
    expect(parsePropertyFilters(undefined, 'event')).toBeNull();
    expect(parsePropertyFilters('', 'event')).toBeNull();
    expect(parsePropertyFilters('[]', 'event')).toBeNull();
  });

  it.each([
    ['{', 'Properties are unparsable!'],
    ['"text"', 'Properties are unparsable!'],
    ['[null]', 'Properties are unparsable!'],
    ['[{"value":1}]', 'Property filter is missing a key.'],
    ['[{"key":"a","operator":3}]', 'Property filter operator must be a string.'],
    ['[{"key":"a","type":[]}]', 'Property filter type must be a string.'],
    [JSON.stringify(Array.from({ length: 51 }, () => ({ key: 'a' }))), 'At most 50 property filters are allowed.'],
    ['[[[[[[[{"key":"a"}]]]]]]]', 'Property filters may nest at most 5 levels.'],
  ])('refuses %s', (raw, detail) => {
    expect(() => parsePropertyFilters(raw, 'event')).toThrow(new PropertyFilterError(detail));
  });

  it('collects the cohort ids a tree refers to', () => {
    expect(cohortIdsOf(parsePropertyFilters('[{"key":"id","type":"cohort","value":"7"},{"key":"id","type":"cohort","value":"x"}]', 'person'))).toEqual([7]);
  });
});

describe('propertyFiltersToSql', () => {
  it('is TRUE without filters', () => {
    expect(toSql(null)).toEqual({ sql: 'TRUE', params: [] });
  });

  it('binds keys and values as parameters numbered on from the query\'s own', () => {
    const { sql, params } = translate([{ key: "x' OR 1=1 --", value: "'; DROP TABLE person; --" }]);
    expect(params).toEqual(["x' OR 1=1 --", ["'; drop table person; --"]]);
    expect(sql).toBe(
      `(coalesce(((e.properties ? $3::text) AND (lower(coalesce(e.properties ->> $3::text, 'null')) = ANY($4::text[]))), FALSE))`,
    );
    expect(sql).not.toContain('DROP');
  });

  it('never puts user text in the SQL, whatever the operator', () => {
    const marker = 'zz\'"\\$1;--';
    const operators = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'lt', 'is_date_before', 'semver_gt',
      'semver_tilde', 'starts_with', 'ends_with', 'icontains_multi', 'not_icontains_multi', 'is_set', 'is_not_set'];
    for (const operator of operators) {
      const { sql } = translate([{ key: marker, value: marker, operator }]);
      expect(sql).not.toContain('zz');
    }
  });

  it('replaces NUL in bound text (PostgreSQL text cannot hold it)', () => {
    expect(translate([{ key: 'a\u0000b', value: 'c\u0000', operator: 'icontains' }]).params).toEqual(['a\ufffdb', '%c\ufffd%']);
  });

  it('escapes LIKE wildcards in contains, starts_with and ends_with', () => {
    expect(translate([{ key: 'a', value: '50%_\\', operator: 'icontains' }]).params[1]).toBe('%50\\%\\_\\\\%');
    expect(translate([{ key: 'a', value: ['x', 'y'], operator: 'starts_with' }]).params[1]).toEqual(['x%', 'y%']);
    expect(translate([{ key: 'a', value: 'x', operator: 'ends_with' }]).params[1]).toEqual(['%x']);
  });

  it('lets negated operators match missing keys and nulls', () => {
    const { sql } = translate([{ key: 'a', value: 'x', operator: 'is_not' }]);
    expect(sql).toContain('NOT (e.properties ? $3::text)');
    expect(sql).toContain(`jsonb_typeof((e.properties -> $3::text)) = 'null'`);
  });

  it('compares booleans by truthiness and covers both values at once', () => {
    expect(translate([{ key: 'a', value: true }]).params).toEqual(['a', true]);
    expect(translate([{ key: 'a', value: ['true', 'FALSE'] }]).sql).toBe(`(coalesce(((e.properties ? $3::text) AND TRUE), FALSE))`);
  });

  it('compares numbers numerically and matches nothing for a non-numeric filter value', () => {
    const { sql, params } = translate([{ key: 'n', value: '10', operator: 'gte' }]);
    expect(sql).toContain('>= $4::numeric');
    expect(params).toEqual(['n', '10']);
    expect(translate([{ key: 'n', value: 'ten', operator: 'gt' }]).sql).toContain('AND FALSE');
  });

  it('turns invalid regexes into no match for regex, and into "missing or null" for not_regex', () => {
    expect(translate([{ key: 'a', value: '(', operator: 'regex' }]).sql).toContain('AND FALSE');
    expect(translate([{ key: 'a', value: '(', operator: 'not_regex' }])).toEqual({
      sql: `(coalesce((NOT (e.properties ? $3::text) OR jsonb_typeof((e.properties -> $3::text)) = 'null'), FALSE))`,
      params: ['a'],
    });
  });

  it('resolves relative dates against now and compares epoch milliseconds', () => {
    const { sql, params } = translate([{ key: 'd', value: '-1d', operator: 'is_date_after' }]);
    expect(sql).toContain('property_epoch_ms((e.properties -> $3::text)) > $4::float8');
    expect(params[1]).toBe(NOW.getTime() - 86_400_000);
  });

  it('compares versions as [major, minor, patch, release] and ranges as half-open', () => {
    expect(translate([{ key: 'v', value: '1.2', operator: 'semver_gt' }]).params[1]).toEqual([1, 2, 0, 1]);
    expect(translate([{ key: 'v', value: '1.2.3', operator: 'semver_tilde' }]).params.slice(1)).toEqual([
      [1, 2, 3, 1],
      [1, 3, 0, 1],
    ]);
  });

  it('reads person filters from the person column and groups with AND/OR and negation', () => {
    const { sql } = translate({ type: 'OR', values: [{ key: 'a', type: 'person', operator: 'is_set' }, { key: 'b', operator: 'is_set', negation: true }] });
    expect(sql).toBe('(coalesce((p.properties ? $3::text), FALSE) OR (NOT coalesce((e.properties ? $4::text), FALSE)))');
  });

  it('refuses types without a column, unknown operators and in/not_in outside cohorts', () => {
    expect(() => translate([{ key: 'text', type: 'element' }])).toThrow('Property filters of type "element" are not supported here: use event, person, cohort (insights read every type).');
    expect(() => translate([{ key: 'a', operator: 'is_cool' }])).toThrow('Unknown operator "is_cool". Use one of exact, is_not,');
    expect(() => translate([{ key: 'a', operator: 'in', value: [1] }])).toThrow('Operator "in" does not apply to event filters. Use one of exact,');
    for (const operator of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(() => translate([{ key: 'a', operator, value: 'x' }])).toThrow(`Unknown operator "${operator}".`);
    }
    expect(() => translate([{ key: 'id', type: 'cohort', value: 1 }], { personId: undefined })).toThrow('Cohort filters are not supported here.');
  });

  it('turns static cohorts into a membership probe and dynamic ones into their property tree', () => {
    const cohorts = new Map([
      [1, { isStatic: true, filters: {} }],
      [2, { isStatic: false, filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }, { key: 'id', type: 'cohort', value: 2 }] } } }],
    ]);
    const stat = translate([{ key: 'id', type: 'cohort', value: 1 }], { cohorts });
    expect(stat).toEqual({
      sql: '(coalesce(EXISTS (SELECT 1 FROM cohort_person cp WHERE cp.cohort_id = $3 AND cp.person_id = p.id), FALSE))',
      params: [1],
    });
    const dynamic = translate([{ key: 'id', type: 'cohort', value: 2, operator: 'not_in' }], { cohorts });
    expect(dynamic.sql).toContain('(NOT (coalesce(((p.properties ? $3::text)');
    // The cohort refers to itself: the inner reference matches nobody instead of recursing forever.
    expect(dynamic.sql).toContain('coalesce(FALSE, FALSE)');
    expect(translate([{ key: 'id', type: 'cohort', value: 9 }], { cohorts }).sql).toBe('(coalesce(FALSE, FALSE))');
  });

  it('knows when a tree needs the person', () => {
    expect(needsPerson(parsePropertyFilters('[{"key":"a"}]', 'event'))).toBe(false);
    expect(needsPerson(parsePropertyFilters('[{"key":"a","type":"person"}]', 'event'))).toBe(true);
    expect(needsPerson(parsePropertyFilters('[{"key":"id","type":"cohort","value":1}]', 'event'))).toBe(true);
  });
});
