import { parseTimestamp } from '../../src/modules/ingestion/timestamps';

describe('parseTimestamp', () => {
  const utc = Date.UTC(2026, 0, 1, 10, 0, 0);

  it.each([
    ['2026-01-01T10:00:00Z', utc],
    ['2026-01-01T10:00:00', utc],
    ['2026-01-01 10:00:00', utc],
    ['2026-01-01T12:00:00+02', utc],
    ['2026-01-01T12:00:00+0200', utc],
    ['2026-01-01T12:00:00+02:00', utc],
    ['2026-01-01T07:30:00-02:30', utc],
    ['2026-01-01T10:00:00.250z', utc + 250],
    ['2026-01-01T10:00', utc],
    ['Thu, 01 Jan 2026 10:00:00 GMT', utc],
    [utc, utc],
    [utc / 1000, utc],
    [String(utc), utc],
  ])('reads %j', (value, expected) => {
    expect(parseTimestamp(value)).toBe(expected);
  });

  it.each([['yesterday'], ['2026-13-01T10:00:00Z'], [''], [null], [{}], [Number.NaN]])('finds no time in %j', (value) => {
    expect(parseTimestamp(value)).toBeNaN();
  });
});
