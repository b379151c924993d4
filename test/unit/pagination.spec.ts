import fc from 'fast-check';
import { DEFAULT_LIMIT, MAX_LIMIT, buildPage, parsePageRequest } from '../../src/common/http/pagination';

const BASE = 'http://localhost:8000/api/projects/';

function queryOf(link: string): Record<string, string> {
  return Object.fromEntries(new URL(link).searchParams);
}

describe(parsePageRequest.name, () => {
  it('uses the defaults when the query is undefined', () => {
    expect(parsePageRequest(undefined)).toEqual({ limit: DEFAULT_LIMIT, offset: 0 });
  });

  it('uses the defaults when the query is empty', () => {
    expect(parsePageRequest({})).toEqual({ limit: 100, offset: 0 });
  });

  it('reads limit and offset', () => {
    expect(parsePageRequest({ limit: '25', offset: '50' })).toEqual({ limit: 25, offset: 50 });
  });

  it('accepts leading zeros', () => {
    expect(parsePageRequest({ limit: '007', offset: '010' })).toEqual({ limit: 7, offset: 10 });
  });

  it('accepts a limit of exactly MAX_LIMIT', () => {
    expect(parsePageRequest({ limit: '1000' })).toEqual({ limit: MAX_LIMIT, offset: 0 });
  });

  it('caps a larger limit at MAX_LIMIT', () => {
    expect(parsePageRequest({ limit: '1001' })).toEqual({ limit: 1000, offset: 0 });
  });

  it('falls back to the default for a zero limit', () => {
    expect(parsePageRequest({ limit: '0' })).toEqual({ limit: 100, offset: 0 });
  });

  it.each(['-1', '-0', 'abc', '', '1.5', '1e3', '10abc', ' 5', '0x10', '+5'])('falls back to the default limit for %j', (limit) => {
    expect(parsePageRequest({ limit })).toEqual({ limit: 100, offset: 0 });
  });

  it.each(['-5', 'abc', '', '2.5', '1e2', ' 3'])('falls back to offset 0 for %j', (offset) => {
    expect(parsePageRequest({ offset, limit: '10' })).toEqual({ limit: 10, offset: 0 });
  });

  it('accepts a zero offset', () => {
    expect(parsePageRequest({ offset: '0' })).toEqual({ limit: 100, offset: 0 });
  });

  it('keeps a valid offset when the limit is invalid', () => {
    expect(parsePageRequest({ limit: 'x', offset: '30' })).toEqual({ limit: 100, offset: 30 });
  });

  it('ignores non-string values', () => {
    expect(parsePageRequest({ limit: 10, offset: 20 })).toEqual({ limit: 100, offset: 0 });
  });

  it('takes the last value of a repeated parameter, as Django does', () => {
    expect(parsePageRequest({ limit: ['5', '10'], offset: ['1'] })).toEqual({ limit: 10, offset: 1 });
  });

  it('caps a limit too large for a number at MAX_LIMIT instead of falling back', () => {
    expect(parsePageRequest({ limit: '99999999999999999999', offset: '99999999999999999999' })).toEqual({
      limit: 1000,
      offset: Number.MAX_SAFE_INTEGER,
    });
  });

  it('always yields a limit in 1..MAX_LIMIT and a non-negative offset', () => {
    const raw = fc.oneof(fc.string(), fc.nat().map(String), fc.integer().map(String), fc.constant(undefined));
    fc.assert(
      fc.property(raw, raw, (limit, offset) => {
        const page = parsePageRequest({ limit, offset });
        expect(Number.isInteger(page.limit) && page.limit >= 1 && page.limit <= MAX_LIMIT).toBe(true);
        expect(Number.isInteger(page.offset) && page.offset >= 0).toBe(true);
      }),
    );
  });

  it('round-trips every in-range limit and offset', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_LIMIT }), fc.nat(), (limit, offset) => {
        expect(parsePageRequest({ limit: String(limit), offset: String(offset) })).toEqual({ limit, offset });
      }),
    );
  });
});

describe(buildPage.name, () => {
  it('builds the full envelope for a first page', () => {
    const url = new URL(`${BASE}?limit=2`);
    expect(buildPage(url, { limit: 2, offset: 0 }, ['a', 'b'], 5)).toEqual({
      count: 5,
      next: `${BASE}?limit=2&offset=2`,
      previous: null,
      results: ['a', 'b'],
    });
  });

  it('builds next and previous for a middle page', () => {
    const url = new URL(`${BASE}?limit=2&offset=2`);
    expect(buildPage(url, { limit: 2, offset: 2 }, ['c', 'd'], 5)).toEqual({
      count: 5,
      next: `${BASE}?limit=2&offset=4`,
      previous: `${BASE}?limit=2`,
      results: ['c', 'd'],
    });
  });

  it('builds a null next for the last page', () => {
    const url = new URL(`${BASE}?limit=2&offset=4`);
    expect(buildPage(url, { limit: 2, offset: 4 }, ['e'], 5)).toEqual({
      count: 5,
      next: null,
      previous: `${BASE}?limit=2&offset=2`,
      results: ['e'],
    });
  });

  it('builds a null next when the page ends exactly at count', () => {
    const url = new URL(`${BASE}?limit=2&offset=2`);
    expect(buildPage(url, { limit: 2, offset: 2 }, ['c', 'd'], 4).next).toBeNull();
  });

  it('builds a next link when one item remains', () => {
    const url = new URL(BASE);
    expect(buildPage(url, { limit: 2, offset: 0 }, ['a', 'b'], 3).next).toBe(`${BASE}?limit=2&offset=2`);
  });

  it('builds null links for an empty list', () => {
    expect(buildPage(new URL(BASE), { limit: 100, offset: 0 }, [], 0)).toEqual({
      count: 0,
      next: null,
      previous: null,
      results: [],
    });
  });

  it('adds limit to links even when the request had none', () => {
    expect(buildPage(new URL(BASE), { limit: 100, offset: 0 }, [], 250).next).toBe(`${BASE}?limit=100&offset=100`);
  });

  it('drops offset from previous when offset minus limit is zero', () => {
    const url = new URL(`${BASE}?offset=3&limit=3`);
    expect(buildPage(url, { limit: 3, offset: 3 }, [], 10).previous).toBe(`${BASE}?limit=3`);
  });

  it('drops offset from previous when offset is smaller than limit', () => {
    const url = new URL(`${BASE}?limit=10&offset=4`);
    expect(buildPage(url, { limit: 10, offset: 4 }, [], 20).previous).toBe(`${BASE}?limit=10`);
  });

  it('keeps other query parameters in both links', () => {
    const url = new URL(`${BASE}?search=foo&limit=2&offset=4&order=-created_at`);
    const page = buildPage(url, { limit: 2, offset: 4 }, [], 10);
    expect(page.next).toBe(`${BASE}?search=foo&limit=2&offset=6&order=-created_at`);
    expect(page.previous).toBe(`${BASE}?search=foo&limit=2&offset=2&order=-created_at`);
  });

  it('rewrites a limit from the URL with the effective (capped) limit', () => {
    const url = new URL(`${BASE}?limit=5000`);
    expect(buildPage(url, { limit: 1000, offset: 0 }, [], 1500).next).toBe(`${BASE}?limit=1000&offset=1000`);
  });

  it('keeps scheme, host and port in links', () => {
    const url = new URL('https://hog.example.com:8443/api/projects/1/keys/?limit=1');
    expect(buildPage(url, { limit: 1, offset: 0 }, [], 2).next).toBe('https://hog.example.com:8443/api/projects/1/keys/?limit=1&offset=1');
  });

  it('does not modify the request URL', () => {
    const url = new URL(`${BASE}?limit=2&offset=2`);
    buildPage(url, { limit: 2, offset: 2 }, [], 10);
    expect(url.toString()).toBe(`${BASE}?limit=2&offset=2`);
  });

  it('omits count when includeCount is false', () => {
    const page = buildPage(new URL(BASE), { limit: 2, offset: 0 }, ['a', 'b'], 3, { includeCount: false });
    expect(page).toStrictEqual({ next: `${BASE}?limit=2&offset=2`, previous: null, results: ['a', 'b'] });
  });

  it('includes count when includeCount is true', () => {
    expect(buildPage(new URL(BASE), { limit: 2, offset: 0 }, [], 0, { includeCount: true })).toStrictEqual({
      count: 0,
      next: null,
      previous: null,
      results: [],
    });
  });

  it('still builds a previous link past the end of the list', () => {
    const url = new URL(`${BASE}?limit=10&offset=50`);
    expect(buildPage(url, { limit: 10, offset: 50 }, [], 5)).toEqual({
      count: 5,
      next: null,
      previous: `${BASE}?limit=10&offset=40`,
      results: [],
    });
  });

  // Simulates a client that starts at offset 0 and follows `next` until it is null.
  function walkForward(count: number, limit: number, extraQuery: string): number[] {
    const items = Array.from({ length: count }, (_, i) => i);
    const visited: number[] = [];
    let link: string | null = `${BASE}?${extraQuery}limit=${limit}`;
    for (let guard = 0; link !== null && guard <= count + 1; guard++) {
      const url: URL = new URL(link);
      const request = parsePageRequest(Object.fromEntries(url.searchParams));
      const page = buildPage(url, request, items.slice(request.offset, request.offset + request.limit), count);
      visited.push(...page.results);
      link = page.next;
    }
    return visited;
  }

  it('visits every index exactly once, in order, when following next from offset 0', () => {
    fc.assert(
      fc.property(fc.nat({ max: 500 }), fc.integer({ min: 1, max: 60 }), (count, limit) => {
        expect(walkForward(count, limit, 'search=x&')).toEqual(Array.from({ length: count }, (_, i) => i));
      }),
    );
  });

  it('retraces the pages in reverse when following previous from the last page', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 40 }), (count, limit) => {
        const lastOffset = Math.floor((count - 1) / limit) * limit;
        const offsets: number[] = [];
        let link: string | null = `${BASE}?limit=${limit}&offset=${lastOffset}`;
        while (link !== null) {
          const url: URL = new URL(link);
          const request = parsePageRequest(Object.fromEntries(url.searchParams));
          offsets.push(request.offset);
          link = buildPage(url, request, [], count).previous;
        }
        const expected = Array.from({ length: lastOffset / limit + 1 }, (_, i) => lastOffset - i * limit);
        expect(offsets).toEqual(expected);
      }),
    );
  });

  it('always makes next a link to offset+limit and previous a link to max(offset-limit, 0)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_LIMIT }), fc.nat({ max: 10_000 }), fc.nat({ max: 10_000 }), (limit, offset, count) => {
        const page = buildPage(new URL(`${BASE}?q=1`), { limit, offset }, [], count);
        expect(page.next === null ? null : queryOf(page.next)).toEqual(
          offset + limit < count ? { q: '1', limit: String(limit), offset: String(offset + limit) } : null,
        );
        const previousQuery = offset - limit > 0 ? { q: '1', limit: String(limit), offset: String(offset - limit) } : { q: '1', limit: String(limit) };
        expect(page.previous === null ? null : queryOf(page.previous)).toEqual(offset > 0 ? previousQuery : null);
      }),
    );
  });
});
