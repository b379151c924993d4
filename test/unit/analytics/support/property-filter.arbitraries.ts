import fc from 'fast-check';

/**
 * Property rows and filter trees for comparing the ClickHouse compiler with the PostgreSQL one. Values stay
 * inside what both stores hold the same way; the report of the ClickHouse compiler lists what is left out:
 * numbers whose PostgreSQL text is not their shortest double form (below 1e-6, from 2^63, trailing zeros),
 * the letters whose lower case differs (İ, Σ ending a word, Unicode 16), Unicode spaces beside digits
 * (PostgreSQL's numeric cast raises), and regexes where PostgreSQL's dialect and RE2 part (`.` and newlines,
 * `\s`, `\w`, `\b`, `(?i)`).
 */

/** A JSON number written as given: PostgreSQL keeps its digits, JavaScript could not hold them. */
export class RawNumber {
  constructor(readonly text: string) {}
}

export type Json = null | boolean | number | string | RawNumber | Json[] | { [key: string]: Json };

export function jsonText(value: Json): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Keys of every property type; `$browser` and `$os` have hot columns on events. */
export const KEYS = ['$browser', '$os', 'a', 'B', 'num', 'when', 'ver', `k'"\\`, 'é'];

const CHARS = [...'abcABCxXz0125.-+eE Tv%_\\\'":/()[]*?$^|{}', '\t', '\n', 'é', 'É', 'ü', 'Ü', 'ß', 'ñ', 'Ñ', 'ø', 'Ø', '😀'];
const randomText = fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 7 });
const WORDS = ['Chrome', 'chrome', 'CHROME', 'Chrome Mobile', 'Firefox', 'ÉCOLE', 'école', 'Ünïcode', 'true', 'TRUE', 'False', 'false',
  'null', 'NULL', '', ' ', 'a%b', 'a_b', 'axb', 'back\\slash', "it's", 'say "hi"', 'line\nbreak', '{"a": 1}', '[1, 2]'];
export const NUMERIC_TEXTS = [' 12 ', '+5', '.5', '5.', '1e3', '1E-2', '-0', '007', '0.1000000000000000000001', '9007199254740993', '-9007199254740993',
  '1e999', '-1e-999', '12abc', '1,5', '1e1000', '\t-3.5\n', '0x10', 'Infinity', '10', '9.99', '100'];
const VERSION_TEXTS = ['1.2.3', 'v1.2', 'V1.2.3', '1.2.3-beta.1', '1.2.3-alpha', '2.0.0+build.5', ' 1.2.3 ', '\u30001.2.3', '1.2.3.4', '01.002.3',
  'v3', '1.x', '1000000000000000000.1', '999999999999999999.0.1', '0.2.9', '1.3.0', '1.2.3-K', '1.2.3-\u212A'];

const pad = (n: number, wide: boolean, width = 2) => (wide ? String(n).padStart(width, '0') : String(n));

const timeText = fc
  .record({
    sep: fc.constantFrom('T', 't', ' ', '  '), h: fc.integer({ min: 0, max: 25 }), mi: fc.integer({ min: 0, max: 60 }),
    s: fc.option(fc.integer({ min: 0, max: 61 })), frac: fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 10 })),
    wide: fc.boolean(),
    zone: fc.option(fc.oneof(fc.constantFrom('Z', 'z', ' Z', 'Z '), fc.record({
      sign: fc.constantFrom('+', '-'), hh: fc.integer({ min: 0, max: 16 }), mm: fc.option(fc.integer({ min: 0, max: 60 })), colon: fc.boolean(), space: fc.boolean(),
    }))),
  })
  .map(({ sep, h, mi, s, frac, wide, zone }) => {
    const seconds = s === null ? '' : `:${pad(s, wide)}${frac === null ? '' : `.${frac}`}`;
    const offset = zone === null ? '' : typeof zone === 'string' ? zone
      : `${zone.space ? ' ' : ''}${zone.sign}${pad(zone.hh, true)}${zone.mm === null ? '' : `${zone.colon ? ':' : ''}${pad(zone.mm, true)}`}`;
    return `${sep}${pad(h, wide)}:${pad(mi, wide || mi > 9)}${seconds}${offset}`;
  });

/** Dates in the forms the ClickHouse reading knows, fields out of range included. */
export const isoDateText = fc
  .record({
    y: fc.constantFrom(0, 1, 1582, 1900, 1969, 1970, 2000, 2023, 2024, 2100, 9999), mo: fc.integer({ min: 0, max: 13 }),
    d: fc.integer({ min: 0, max: 32 }), wide: fc.boolean(), time: fc.option(timeText),
    lead: fc.constantFrom('', '', ' ', '\t'), trail: fc.constantFrom('', '', ' ', '\n'),
  })
  .map(({ y, mo, d, wide, time, lead, trail }) => `${lead}${pad(y, true, 4)}-${pad(mo, wide)}-${pad(d, wide)}${time ?? ''}${trail}`);

export const NEAR_DATES = ['2024-06-15', '2024-06-14T12:00:00Z', '2024-06-15T12:00:00.000Z', '2024-06-08T00:00:00+02:00', '2024-01-15', '2023-06-15T11:59:59.999Z',
  '1718452800', ' 1718452800.5 ', '1718366400', '-86400', '0', 'not a date', '2024-06-15 garbage'];

const safeDouble = fc.double({ min: -1e12, max: 1e12, noNaN: true }).filter((x) => x === 0 || Math.abs(x) >= 1e-6);
const number: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: -20, max: 120 }),
  fc.constantFrom(0.5, -3.75, 0.1, 0.30000000000000004, 1e-6, 123456.789, 1718452800, 1718366400.25, 2 ** 53, 1e18, 9.99, 10, 100),
  safeDouble,
  fc.constantFrom(new RawNumber('9007199254740993'), new RawNumber('-9007199254740993'), new RawNumber('12345678901234567')),
);

/** Values a property holds (a filter value never is a RawNumber: {@link filterScalar}). */
export const scalar: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom(...WORDS), weight: 3 },
  { arbitrary: randomText, weight: 2 },
  { arbitrary: number, weight: 3 },
  { arbitrary: fc.constantFrom(...NUMERIC_TEXTS), weight: 2 },
  { arbitrary: fc.oneof(isoDateText, fc.constantFrom(...NEAR_DATES)), weight: 2 },
  { arbitrary: fc.constantFrom(...VERSION_TEXTS), weight: 2 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
);

export const filterScalar = scalar.filter((value) => !(value instanceof RawNumber));

const nested: fc.Arbitrary<Json> = fc.oneof(
  fc.constant<Json>({}), fc.constant<Json>([]), fc.array(scalar, { minLength: 1, maxLength: 3 }), fc.dictionary(fc.constantFrom('x', 'y', 'a'), scalar, { minKeys: 1, maxKeys: 2 }),
);

export const properties: fc.Arbitrary<Record<string, Json>> = fc.dictionary(
  fc.constantFrom(...KEYS),
  fc.oneof({ arbitrary: scalar, weight: 9 }, { arbitrary: nested, weight: 1 }),
  { maxKeys: 7 },
);

/** A value whose text differs between PostgreSQL (`{"a": 1}`) and ClickHouse (`{"a":1}`): an object or list with members. */
export function writtenDifferently(value: Json | undefined): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && typeof value === 'object' && !(value instanceof RawNumber) && Object.keys(value).length > 0;
}
