import fc from 'fast-check';
import { propertyEpochMsSql } from '../../../src/modules/analytics/clickhouse/property-date.ch';
import { coldTarget } from '../../../src/modules/analytics/clickhouse/property-target.ch';
import type { CohortDefinition } from '../../../src/modules/events/property-filter-sql';
import { parsePropertyFilters, PropertyFilterError, PropertyNode } from '../../../src/kernel/property-filters';
import { ClickHouseRows, Evaluation, FilterRow, PostgresRows } from './support/filter-backends';
import { caseSensitiveReference, excludedRows, settle, without } from './support/filter-comparison';
import { cohortFilters, eventFilters, RawFilter } from './support/filter-tree.arbitraries';
import { isoDateText, Json, NEAR_DATES, NUMERIC_TEXTS, properties } from './support/property-filter.arbitraries';

/**
 * The ClickHouse compiler against the PostgreSQL one: the same rows in a jsonb table and in chdb (as jsonb's
 * text, hot event columns included), the same random filter trees, the same matching rows. Needs PostgreSQL
 * (TEST_DATABASE_URL, default 127.0.0.1:5432); FILTER_RUNS scales the number of runs (200: about 15 s).
 */

const NOW = new Date('2024-06-15T12:00:00Z');
const RUNS = Number(process.env.FILTER_RUNS ?? 200);

const row = (id: number) =>
  fc.record({ personId: fc.option(fc.integer({ min: 1, max: 8 })), event: properties, person: fc.option(properties), g0: fc.option(properties), g1: fc.option(properties) })
    .map(({ personId, event, person, g0, g1 }): FilterRow => ({ id, personId, event, person, groups: [g0, g1] }));
const rows = (count: number) => fc.tuple(...Array.from({ length: count }, (_, i) => row(i + 1)));

/** Cohorts 1 and 7 static; 2 and 5 random person trees (they may refer to themselves and each other); 3 half behavioural; 4 unparseable. */
const cohorts = fc.record({ two: cohortFilters, three: cohortFilters, five: cohortFilters, broken: fc.constantFrom<unknown>('garbage', [null], { type: 'OR', values: [3] }) })
  .map(({ two, three, five, broken }) => new Map<number, CohortDefinition>([
    [1, { isStatic: true, filters: {} }],
    [2, { isStatic: false, filters: { properties: two } }],
    [3, { isStatic: false, filters: { properties: { type: 'OR', values: [{ key: 'bought', type: 'behavioral', value: 'performed_event', operator: 'exact' }, three] } } }],
    [4, { isStatic: false, filters: { properties: broken } }],
    [5, { isStatic: false, filters: { properties: five } }],
    [7, { isStatic: true, filters: {} }],
  ]));

function parsed(raw: unknown): PropertyNode | null | undefined {
  try {
    return parsePropertyFilters(JSON.stringify(raw), 'event');
  } catch (error) {
    if (error instanceof PropertyFilterError) return undefined; // the parser refuses it for both: nothing to compare
    throw error;
  }
}

describe('ClickHouse property filters, differential against PostgreSQL', () => {
  let pg: PostgresRows;
  let ch: ClickHouseRows;
  let loaded: readonly FilterRow[] = [];

  beforeAll(async () => {
    pg = await PostgresRows.open();
    ch = await ClickHouseRows.open();
  }, 60_000);

  afterAll(async () => {
    ch?.close();
    await pg?.close();
  }, 60_000);

  async function load(data: readonly FilterRow[]): Promise<void> {
    await pg.load(data);
    await ch.load(await pg.asText());
    loaded = data;
  }

  /** Both compilers, and ClickHouse with and without hot columns and per-person reads, give the same rows (or refuse alike). */
  async function agree(raw: RawFilter, cohortMap: Map<number, CohortDefinition>, caseSensitiveExact = false): Promise<void> {
    const node = parsed(raw);
    fc.pre(node !== undefined);
    const e: Evaluation = { now: NOW, cohorts: cohortMap, caseSensitiveExact };
    const excluded = excludedRows(node, cohortMap, loaded);
    const expected = without(await settle(() => pg.matching(node, e)), excluded);
    if (caseSensitiveExact) {
      // The case rule stated independently of both compilers: the same filters with anchored regexes, case-insensitive.
      const referenceNode = parsed(caseSensitiveReference(raw));
      fc.pre(referenceNode !== undefined);
      const referenceCohorts = new Map([...cohortMap].map(([id, c]) => [id, { ...c, filters: { properties: caseSensitiveReference(c.filters.properties) } }]));
      expect(without(await settle(() => pg.matching(referenceNode, { now: NOW, cohorts: referenceCohorts })), excluded)).toEqual(expected);
    }
    const hot = without(await settle(() => ch.matching(node, e, { hotColumns: true, personSet: false })), excluded);
    const cold = without(await settle(() => ch.matching(node, e, { hotColumns: false, personSet: false })), excluded);
    const perPerson = without(await settle(() => ch.matching(node, e, { hotColumns: true, personSet: true })), excluded);
    expect({ hot, cold, perPerson }).toEqual({ hot: expected, cold: expected, perPerson: expected });
  }

  describe('over one seeded set of 300 rows', () => {
    beforeAll(async () => load(fc.sample(rows(300), { numRuns: 1, seed: 20_240_615 })[0]));

    it('matches the same rows for random event, person, group and cohort filter trees', async () => {
      await fc.assert(fc.asyncProperty(eventFilters, cohorts, (raw, c) => agree(raw, c)), { numRuns: RUNS });
    }, 120_000);

    it('matches the same rows with case-sensitive exact, as the same filters spelt with anchored regexes do', async () => {
      await fc.assert(fc.asyncProperty(eventFilters, cohorts, (raw, c) => agree(raw, c, true)), { numRuns: RUNS / 2 });
    }, 120_000);
  });

  it('reads dates to the same epoch milliseconds as property_epoch_ms', async () => {
    const value = fc.oneof(isoDateText, fc.constantFrom<Json>(...NEAR_DATES, ...NUMERIC_TEXTS), fc.double({ min: -1e12, max: 1e12, noNaN: true }).filter((x) => x === 0 || Math.abs(x) >= 1e-6));
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 40 }), async (values) => {
        const { rows: read } = await pg.client.query(`SELECT property_epoch_ms(v) AS ms, jsonb_build_object('v', v)::text AS doc
          FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS x(v, i) ORDER BY i`, [JSON.stringify(values)]);
        const t = coldTarget('d', `'v'`);
        const result = await ch.session.queryBindAsync(`SELECT ${propertyEpochMsSql({ ...t, raw: t.raw! })} AS ms
          FROM (SELECT z.1 AS d, z.2 AS i FROM (SELECT arrayJoin(arrayZip({docs:Array(String)}, range(length({docs:Array(String)})))) AS z)) ORDER BY i`,
        { docs: read.map((r: { doc: string }) => r.doc) }, { format: 'JSON' });
        expect(result.json<{ data: Array<{ ms: number | null }> }>().data.map((r) => r.ms)).toEqual(read.map((r: { ms: number | null }) => r.ms));
      }),
      { numRuns: RUNS / 4 },
    );
  }, 120_000);

  it('compares numbers exactly, as numeric does, also where doubles cannot tell them apart', async () => {
    const threshold = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(0.1, 2 ** 53, -(2 ** 53), 1e21, 5e-324, 0));
    const near = (x: number) => {
      const text = String(x);
      const longer = text.includes('e') ? text.replace('e', '000000000000000000001e') : `${text}${text.includes('.') ? '' : '.'}000000000000000000001`;
      return fc.constantFrom(text, longer, `-${longer}`.replace('--', ''), ` ${text} `, `+${text}`.replace('+-', '-'), `${text}0`);
    };
    await fc.assert(
      fc.asyncProperty(threshold.chain((x) => fc.tuple(fc.constant(x), fc.array(fc.oneof(near(x), fc.constantFrom(...NUMERIC_TEXTS)), { minLength: 1, maxLength: 12 }),
        fc.constantFrom('gt', 'gte', 'lt', 'lte'), fc.boolean())), async ([x, texts, operator, asString]) => {
        await load(texts.map((text, i): FilterRow => ({ id: i + 1, personId: null, event: { num: text, $os: text }, person: null, groups: [null, null] })));
        for (const key of ['num', '$os']) await agree([{ key, operator, value: asString ? String(x) : x }], new Map());
      }),
      { numRuns: RUNS / 4 },
    );
  }, 120_000);

  it('matches the same rows over random rows', async () => {
    await fc.assert(
      fc.asyncProperty(rows(25), eventFilters, cohorts, async (data, raw, c) => {
        await load(data);
        await agree(raw, c);
      }),
      { numRuns: RUNS / 10 },
    );
  }, 120_000);
});
