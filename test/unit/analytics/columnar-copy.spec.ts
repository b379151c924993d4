import { Readable } from 'node:stream';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { ActivityBits, Buckets } from '../../../src/modules/analytics/columnar/columnar-buckets';
import { copyField, readCopyRows } from '../../../src/modules/analytics/columnar/copy-text';
import { pathItemOf } from '../../../src/modules/analytics/columnar/event-columns';

/** COPY TO's text escaping, as PostgreSQL writes it. */
const escaped = (value: string) => value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

async function rowsOf(chunks: Buffer[]): Promise<Array<Array<string | null>>> {
  const rows: Array<Array<string | null>> = [];
  await readCopyRows(Readable.from(chunks), (fields) => rows.push(fields));
  return rows;
}

describe('COPY text reading', () => {
  it('reads NULL, escapes and plain text', () => {
    expect([copyField('\\N'), copyField('a\\tb\\nc\\\\d\\re'), copyField('plain'), copyField('')]).toEqual([null, 'a\tb\nc\\d\re', 'plain', '']);
  });

  it('gives back any rows, however the stream cuts them (multi-byte characters included)', async () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.option(text), { minLength: 1, maxLength: 4 }), { maxLength: 6 }), fc.integer({ min: 1, max: 7 }), async (rows, cut) => {
        const bytes = Buffer.from(rows.map((row) => `${row.map((field) => (field === null ? '\\N' : escaped(field))).join('\t')}\n`).join(''));
        const chunks: Buffer[] = [];
        for (let at = 0; at < bytes.length; at += cut) chunks.push(bytes.subarray(at, at + cut));
        expect(await rowsOf(chunks)).toEqual(rows);
      }),
    );
  });

  it('reads a last row without its newline', async () => {
    expect(await rowsOf([Buffer.from('a\tb\nc\t\\N')])).toEqual([['a', 'b'], ['c', null]]);
  });
});

describe('Column buckets', () => {
  it('gives the two hours a clock repeats one key, as date_trunc on local time does', () => {
    const zone = 'America/New_York';
    const range = { from: DateTime.fromISO('2026-11-01T00:00', { zone }), to: DateTime.fromISO('2026-11-01T03:59', { zone }) };
    const sut = new Buckets(range, 'hour', 0, zone);
    expect(sut.keys).toEqual(['2026-11-01T00:00:00', '2026-11-01T01:00:00', '2026-11-01T02:00:00', '2026-11-01T03:00:00']);
    const firstOne = DateTime.fromISO('2026-11-01T05:30:00Z').toMillis();
    const secondOne = DateTime.fromISO('2026-11-01T06:30:00Z').toMillis();
    expect([sut.indexOf(firstOne), sut.indexOf(secondOne)]).toEqual([1, 1]);
    expect([sut.indexOf(range.from.toMillis() - 1), sut.indexOf(range.to.toMillis()), sut.indexOf(range.to.plus({ hours: 1 }).toMillis())]).toEqual([-1, 3, -1]);
  });

  it('starts weeks on Sunday or Monday', () => {
    const range = { from: DateTime.fromISO('2026-03-04', { zone: 'UTC' }), to: DateTime.fromISO('2026-03-10', { zone: 'UTC' }) };
    expect(new Buckets(range, 'week', 0, 'UTC').keys).toEqual(['2026-03-01T00:00:00', '2026-03-08T00:00:00']);
    expect(new Buckets(range, 'week', 1, 'UTC').keys).toEqual(['2026-03-02T00:00:00', '2026-03-09T00:00:00']);
  });

  it('counts each (bucket, person) once', () => {
    const sut = new ActivityBits(2, 70);
    [[0, 0], [0, 69], [0, 69], [1, 31], [1, 32]].forEach(([bucket, person]) => sut.set(bucket, person));
    expect([sut.count(0), sut.count(1), sut.has(0, 69), sut.has(1, 0)]).toEqual([2, 2, true, false]);
  });
});

describe(pathItemOf.name, () => {
  it('takes one trailing slash off a page view URL, keeps screens as they are and has no item for other events', () => {
    expect([pathItemOf('$pageview', 'https://x.com/a/'), pathItemOf('$pageview', '/'), pathItemOf('$pageview', 'a//'), pathItemOf('$screen', 'Home/'), pathItemOf('buy', null)])
      .toEqual(['https://x.com/a', '/', 'a/', 'Home/', null]);
  });
});
