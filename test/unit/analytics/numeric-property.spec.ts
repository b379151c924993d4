import fc from 'fast-check';
import { ChParams } from '../../../src/modules/analytics/engine/ch-sql';
import { numericPropertySql } from '../../../src/modules/analytics/sql/trends.sql';
import { jsonText, KEYS, properties } from './support/property-filter.arbitraries';
import { scratchEngine } from './support/scratch-engine';

/**
 * A numeric event property (what sum, avg, min, max and percentiles aggregate) read with one parse of the
 * properties, against the rule stated plainly, a question at a time: a JSON number as written; a string of decimal
 * text (under 100 characters, optional sign, fraction and a two-digit exponent, spaces around) as its number;
 * anything else, or a magnitude of 1e300 or more, NULL.
 */
const NUMERIC_TEXT = String.raw`^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,2})?\s*$`;

function statedRule(key: string, p: ChParams): string {
  const k = p.add(key, 'String');
  const type = `JSONType(e.properties, ${k})`;
  const text = `multiIf(${type} = 'String', JSONExtractString(e.properties, ${k}), ${type} = 'Null', NULL, JSONExtractRaw(e.properties, ${k}))`;
  return `if((${type} IN ('Int64', 'UInt64', 'Double') OR (${type} = 'String' AND length(${text}) < 100 AND match(${text}, ${p.add(NUMERIC_TEXT, 'String')})))
      AND abs(toFloat64OrZero(trimBoth(${text}))) < 1e300, toFloat64OrNull(trimBoth(${text})), NULL)`;
}

/** Properties written as clients write them too: spaces around members, escaped digits, numbers past Float64. */
const HANDWRITTEN = [
  '{ "a" : 12 , "B" : " 7 " }', '{"a":"\\u0031\\u0032","B":"1\\u0065\\u0032"}', '{"a":1e400,"B":"-1e299"}', '{"a":-1.5,"B":"+.5"}',
  '{"a":"12","a":"x"}', '{"a":true,"B":null}', '{"a":[1],"B":{"x":1}}', 'not json', '', `{"a":"${'1'.repeat(99)}","B":"${'1'.repeat(100)}"}`,
];

describe('numericPropertySql', () => {
  const engine = scratchEngine('CREATE TABLE events (id UInt32, properties String) ENGINE = Memory');

  async function differences(texts: string[], key: string): Promise<unknown[]> {
    await engine.load('events', texts.map((properties, id) => ({ id, properties })));
    return engine.rows((p) => `SELECT properties, ${numericPropertySql(key, p)} AS one_parse, ${statedRule(key, p)} AS stated FROM events AS e WHERE NOT (one_parse <=> stated)`);
  }

  it('reads every generated property as the stated rule does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(properties, { minLength: 1, maxLength: 30 }), fc.constantFrom(...KEYS), async (rows, key) => {
        expect(await differences(rows.map(jsonText), key)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('reads handwritten properties as the stated rule does, and finds their numbers', async () => {
    expect(await differences(HANDWRITTEN, 'a')).toEqual([]);
    expect(await differences(HANDWRITTEN, 'B')).toEqual([]);
    const found = await engine.rows<{ a: number | null }>((p) => `SELECT id, ${numericPropertySql('a', p)} AS a FROM events AS e WHERE id != 4 ORDER BY id`);
    // Row 4 names its key twice: which one counts is the parser's, the same for both statements.
    expect(found.map((row) => row.a)).toEqual([12, 12, null, -1.5, null, null, null, null, Number('1'.repeat(99))]);
  });
});
