import { csvPage, flattenRecord, toCsv, wantsCsv } from '../../../src/modules/events/csv-export';

describe('toCsv', () => {
  it('flattens nested objects and lists to dotted columns, sorted, with CRLF rows', () => {
    expect(toCsv([{ b: 1, a: { x: 'y', list: ['p', 'q'] } }, { c: null, b: true }])).toBe(
      'a.list.0,a.list.1,a.x,b,c\r\np,q,y,1,\r\n,,,true,\r\n',
    );
  });

  it('quotes separators, quotes and line breaks', () => {
    expect(toCsv([{ a: 'he said "hi", then\nleft' }])).toBe('a\r\n"he said ""hi"", then\nleft"\r\n');
  });

  it("prefixes cells that would run as formulas with ', headers included", () => {
    const csv = toCsv([{ '=cmd': '=1+1', p: '+1', m: '-2', at: '@SUM(A1)', tab: '\tx', cr: '\rx', safe: 'a=b' }]);
    const [header, row] = csv.split('\r\n');
    expect(header).toBe("'=cmd,at,cr,m,p,safe,tab");
    expect(row).toBe(`'=1+1,'@SUM(A1),"'\rx",'-2,'+1,a=b,'\tx`);
  });

  it('is empty for no rows', () => {
    expect(toCsv([])).toBe('');
  });

  it('reads format=csv and CSV limits', () => {
    expect(wantsCsv({ format: 'csv' })).toBe(true);
    expect(wantsCsv({ format: ['csv', 'json'] })).toBe(false);
    expect(wantsCsv({}, true)).toBe(true);
    expect(csvPage({})).toEqual({ limit: 1000, offset: 0 });
    expect(csvPage({ limit: '99999', offset: '5' })).toEqual({ limit: 10000, offset: 5 });
    expect(flattenRecord({ a: {}, b: [] })).toEqual({});
  });
});
