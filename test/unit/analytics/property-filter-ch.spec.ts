import fc from 'fast-check';
import { ChParams } from '../../../src/modules/analytics/engine/ch-sql';
import { ChFilterContext, needsPerson, propertyFiltersToClickHouse } from '../../../src/modules/analytics/clickhouse/property-filter.ch';
import { decimalKey } from '../../../src/modules/analytics/clickhouse/property-number.ch';
import { parsePropertyFilters, PropertyFilterError } from '../../../src/kernel/property-filters';

const NOW = new Date('2026-01-10T00:00:00Z');
const ctx = (over: Partial<ChFilterContext> = {}): ChFilterContext => ({
  columns: { event: 'e.properties', person: 'p.properties' },
  eventHotColumns: new Map([['$browser', { text: 'e.mat_browser', jsonNull: 'bitTest(e.mat_json_nulls, 0)' }]]),
  groupColumn: (i) => `g${i}.properties`,
  personId: 'e.person_id',
  teamId: 42,
  now: NOW,
  ...over,
});

/** The condition and what it binds, after two parameters of the query's own (so from `p2`). */
function translate(filters: unknown, over: Partial<ChFilterContext> = {}): { sql: string; params: unknown[] } {
  const params = new ChParams();
  params.add(1, 'Int64');
  params.add('before', 'String');
  const sql = propertyFiltersToClickHouse(parsePropertyFilters(JSON.stringify(filters), 'event'), ctx(over), params);
  return { sql, params: Object.values(params.params).slice(2) };
}

describe(propertyFiltersToClickHouse.name, () => {
  it('is 1 without filters', () => {
    expect(propertyFiltersToClickHouse(null, ctx(), new ChParams())).toBe('1');
  });

  it('binds the key and the value, quotes and backslashes included, numbered on from the query\'s own', () => {
    const { sql, params } = translate([{ key: `x' OR 1=1 --\\`, value: `'; DROP TABLE person; --\\"` }]);
    expect(params).toEqual([`x' OR 1=1 --\\`, [`'; drop table person; --\\"`]]);
    expect(sql).toBe(
      `((has({p3:Array(String)}, lowerUTF8(multiIf((JSONExtractRaw(e.properties, {p2:String}) IN ('', 'null')), 'null', ` +
        `startsWith(JSONExtractRaw(e.properties, {p2:String}), '"'), JSONExtractString(JSONExtractRaw(e.properties, {p2:String})), ` +
        `JSONExtractRaw(e.properties, {p2:String})))) AND (JSONExtractRaw(e.properties, {p2:String}) != '')))`,
    );
  });

  it('never puts user text in the SQL, whatever the operator and property type', () => {
    const marker = `zz'"\\{p0:String};--`;
    const operators = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'lt', 'is_date_before', 'semver_gt',
      'semver_tilde', 'starts_with', 'ends_with', 'icontains_multi', 'not_icontains_multi', 'is_set', 'is_not_set'];
    for (const operator of operators) {
      for (const type of ['event', 'person', 'group']) {
        const { sql, params } = translate([{ key: marker, value: [marker], operator, type, group_type_index: 1 }]);
        expect(sql).not.toContain('zz');
        expect(params[0]).toBe(marker);
      }
    }
  });

  it('replaces NUL in bound text, as the PostgreSQL compiler does', () => {
    expect(translate([{ key: 'a\u0000b', value: 'c\u0000', operator: 'icontains' }]).params).toEqual(['a\ufffdb', '%c\ufffd%']);
  });

  it('escapes LIKE wildcards and lowers both sides as PostgreSQL\'s ILIKE does', () => {
    const { sql, params } = translate([{ key: 'a', value: '50%_\\', operator: 'icontains' }]);
    expect(params[1]).toBe('%50\\%\\_\\\\%');
    expect(sql).toContain('LIKE lowerUTF8({p3:String})');
    expect(translate([{ key: 'a', value: ['x', 'y'], operator: 'starts_with' }]).params.slice(1)).toEqual(['x%', 'y%']);
    expect(translate([{ key: 'a', value: 'x', operator: 'ends_with' }]).params[1]).toBe('%x');
  });

  it('reads a hot event property from its column, and JSON null apart from absent from its bit, never parsing the JSON', () => {
    const { sql } = translate([{ key: '$browser', value: 'Chrome' }]);
    expect(sql).toBe(`((has({p2:Array(String)}, lowerUTF8(ifNull(e.mat_browser, 'null'))) AND (isNotNull(e.mat_browser) OR bitTest(e.mat_json_nulls, 0))))`);
    expect(translate([{ key: '$browser', operator: 'is_set' }]).sql).toBe('((isNotNull(e.mat_browser) OR bitTest(e.mat_json_nulls, 0)))');
    expect(translate([{ key: '$browser', value: 'Chrome', operator: 'is_not' }]).sql).toBe(
      `((isNull(e.mat_browser) OR NOT has({p2:Array(String)}, lowerUTF8(ifNull(e.mat_browser, 'null')))))`,
    );
    // Dates depend on the JSON type (a number is unix seconds), which the column does not keep.
    expect(translate([{ key: '$browser', value: '-1d', operator: 'is_date_after' }]).sql).not.toContain('mat_browser');
    expect(translate([{ key: '$browser', value: 'x', type: 'person' }]).sql).not.toContain('mat_browser');
  });

  it('ignores case in exact and is_not by default, and keeps it when asked', () => {
    expect(translate([{ key: 'a', value: ['Chrome', 5] }]).params[1]).toEqual(['chrome', '5']);
    const sensitive = translate([{ key: '$browser', value: ['Chrome', 5] }], { caseSensitiveExact: true });
    expect(sensitive.params[0]).toEqual(['Chrome', '5']);
    expect(sensitive.sql).toContain(`has({p2:Array(String)}, ifNull(e.mat_browser, 'null'))`);
  });

  it('compares booleans by truthiness whatever the case rule, and covers both values at once', () => {
    for (const caseSensitiveExact of [false, true]) {
      expect(translate([{ key: 'a', value: true }], { caseSensitiveExact }).sql).toContain(`= 'true')`);
      expect(translate([{ key: 'a', value: 'FALSE' }], { caseSensitiveExact }).sql).toContain(`!= 'true')`);
      expect(translate([{ key: 'a', value: ['true', false] }], { caseSensitiveExact }).sql).toBe(`((1 AND (JSONExtractRaw(e.properties, {p2:String}) != '')))`);
    }
  });

  it('lets negated operators match missing keys and nulls', () => {
    expect(translate([{ key: 'a', value: 'x', operator: 'not_icontains' }]).sql).toMatch(/^\(\(\(JSONExtractRaw\(e\.properties, \{p2:String\}\) IN \('', 'null'\)\) OR NOT /);
  });

  it('turns invalid regexes into no match for regex, and into "missing or null" for not_regex', () => {
    expect(translate([{ key: 'a', value: '(', operator: 'regex' }]).sql).toBe(`((0 AND (JSONExtractRaw(e.properties, {p2:String}) != '')))`);
    expect(translate([{ key: 'a', value: '(', operator: 'not_regex' }])).toEqual({ sql: `((JSONExtractRaw(e.properties, {p2:String}) IN ('', 'null')))`, params: ['a'] });
    expect(translate([{ key: 'a', value: '^a.c$', operator: 'regex' }]).sql).toContain('match(');
  });

  it('binds numbers, dates and versions as the PostgreSQL compiler reads them', () => {
    expect(translate([{ key: 'n', value: '10', operator: 'gte' }]).params.slice(1)).toEqual(['10', 1, 2, '1']);
    expect(translate([{ key: 'n', value: 'ten', operator: 'gt' }]).sql).toMatch(/^\(\(0 AND/);
    expect(translate([{ key: 'd', value: '-1d', operator: 'is_date_after' }]).params[1]).toBe(String(NOW.getTime() - 86_400_000));
    expect(translate([{ key: 'v', value: '1.2', operator: 'semver_gt' }]).params.slice(1)).toEqual([1n, 2n, 0n, 1n]);
    expect(translate([{ key: 'v', value: '1.2.3', operator: 'semver_tilde' }]).params.slice(1)).toEqual([1n, 2n, 3n, 1n, 1n, 3n, 0n, 1n]);
    expect(translate([{ key: 'v', value: '1.99999999999999999999', operator: 'semver_eq' }]).params[2]).toBe(2n ** 64n - 1n);
  });

  it('reads groups from the group column, and groups with AND/OR and negation', () => {
    const { sql } = translate({ type: 'OR', values: [{ key: 'a', type: 'group', group_type_index: 2, operator: 'is_set' }, { key: 'b', operator: 'is_set', negation: true }] });
    expect(sql).toBe(`((JSONExtractRaw(g2.properties, {p2:String}) != '') OR (NOT (JSONExtractRaw(e.properties, {p3:String}) != '')))`);
  });

  it('refuses what the PostgreSQL compiler refuses, with its details', () => {
    expect(() => translate([{ key: 'text', type: 'element' }])).toThrow(new PropertyFilterError('Property filters of type "element" are not supported here.'));
    expect(() => translate([{ key: 'a', type: 'group' }])).toThrow('Group filters need group_type_index (0–4): the group type "a" belongs to.');
    expect(() => translate([{ key: 'a', operator: 'is_cool' }])).toThrow('Unknown operator "is_cool". Use one of exact, is_not,');
    expect(() => translate([{ key: 'a', operator: 'in', value: [1] }])).toThrow('Operator "in" does not apply to event filters. Use one of exact,');
    for (const operator of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(() => translate([{ key: 'a', operator, value: 'x' }])).toThrow(`Unknown operator "${operator}".`);
    }
    expect(() => translate([{ key: 'id', type: 'cohort', value: 1 }], { personId: undefined })).toThrow('Cohort filters are not supported here.');
    expect(() => translate([{ key: 'id', type: 'cohort', value: 1, operator: 'icontains' }])).toThrow('Operator "icontains" does not apply to cohort filters. Use one of exact, in, not_in.');
  });

  it('reads static cohorts from the versioned membership table of the team, dynamic ones as their property tree', () => {
    const cohorts = new Map([
      [1, { isStatic: true, filters: {} }],
      [2, { isStatic: false, filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro' }, { key: 'id', type: 'cohort', value: 2 }, { key: 'e', type: 'event', operator: 'is_set' }] } } }],
      [3, { isStatic: false, filters: { properties: 'garbage' } }],
    ]);
    const stat = translate([{ key: 'id', type: 'cohort', value: 1 }], { cohorts });
    expect(stat.sql).toBe(`(ifNull(e.person_id IN (SELECT person_id FROM cohort_person WHERE team_id = {p2:Int64} AND cohort_id = {p3:Int64}
    GROUP BY person_id HAVING argMax(is_deleted, version) = 0), 0))`);
    expect(stat.params).toEqual([42, 1]);
    const dynamic = translate([{ key: 'id', type: 'cohort', value: 2, operator: 'not_in' }], { cohorts });
    // The person's properties; the cohort's reference to itself and its event part match nobody.
    expect(dynamic.sql).toMatch(/^\(\(NOT \(\(has\(\{p3:Array\(String\)\}, lowerUTF8\(multiIf\(\(JSONExtractRaw\(p\.properties, \{p2:String\}\)/);
    expect(dynamic.sql).toMatch(/ AND 0 AND 0\)\)\)$/);
    expect(translate([{ key: 'id', type: 'cohort', value: 3 }], { cohorts }).sql).toBe('(0)');
    expect(translate([{ key: 'id', type: 'cohort', value: 9, operator: 'not_in' }], { cohorts }).sql).toBe('((NOT 0))');
  });

  it('knows when a tree needs the person', () => {
    expect(needsPerson(parsePropertyFilters('[{"key":"a"}]', 'event'))).toBe(false);
    expect(needsPerson(parsePropertyFilters('[{"key":"id","type":"cohort","value":1}]', 'event'))).toBe(true);
  });
});

describe(decimalKey.name, () => {
  /** The exact order of two decimal texts, by scaling both to integers. */
  function exactOrder(a: string, b: string): number {
    const scaled = (text: string) => {
      const [, sign, int, frac = '', exp = '0'] = /^([-+]?)(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i.exec(text)!;
      return { digits: BigInt(`${sign === '-' ? '-' : ''}${int}${frac}` || '0'), exponent: Number(exp) - frac.length };
    };
    const [x, y] = [scaled(a), scaled(b)];
    const low = Math.min(x.exponent, y.exponent);
    const diff = x.digits * 10n ** BigInt(x.exponent - low) - y.digits * 10n ** BigInt(y.exponent - low);
    return diff === 0n ? 0 : diff > 0n ? 1 : -1;
  }
  const compareKeys = (a: [number, number, string], b: [number, number, string]) =>
    a[0] !== b[0] ? Math.sign(a[0] - b[0]) : a[1] !== b[1] ? Math.sign(a[1] - b[1]) : a[2] === b[2] ? 0 : a[2] < b[2] ? -1 : 1;

  it('orders decimal texts exactly as the numbers they write', () => {
    const digits = fc.string({ unit: fc.constantFrom(...'0000123456789'), maxLength: 8 });
    const decimal = fc
      .record({ sign: fc.constantFrom('', '-', '+'), int: digits, frac: fc.option(digits), exp: fc.option(fc.integer({ min: -12, max: 12 })) })
      .filter(({ int, frac }) => int.length + (frac ?? '').length > 0)
      .map(({ sign, int, frac, exp }) => `${sign}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `e${exp}`}`);
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        expect(compareKeys(decimalKey(a)!, decimalKey(b)!)).toBe(exactOrder(a, b));
      }),
      { numRuns: 5000 },
    );
  });

  it('has no key for text without digits', () => {
    expect(decimalKey('.')).toBeNull();
    expect(decimalKey('-e5')).toBeNull();
  });
});
