import { mustCompute, refreshModeOf, staleAfterMs } from '../../../src/modules/saved-insights/insight-refresh';

const HOUR = 3600_000;

describe(refreshModeOf.name, () => {
  it.each([
    [undefined, 'force_cache'], ['false', 'force_cache'], ['0', 'force_cache'], ['nonsense', 'force_cache'], ['force_cache', 'force_cache'],
    ['', 'force_blocking'], ['true', 'force_blocking'], ['1', 'force_blocking'], ['YES', 'force_blocking'], [true, 'force_blocking'], ['force_blocking', 'force_blocking'], ['force_async', 'force_blocking'],
    ['blocking', 'blocking'], ['async', 'blocking'], ['lazy_async', 'blocking'], ['async_except_on_cache_miss', 'blocking'], [['true', 'blocking'], 'blocking'],
  ])('reads %j as %s', (raw, mode) => {
    expect(refreshModeOf(raw)).toBe(mode);
  });
});

describe(staleAfterMs.name, () => {
  it('follows the interval, and six hours without one', () => {
    expect(['minute', 'hour', 'day', 'week', 'month'].map((interval) => staleAfterMs({ interval }) / 60_000)).toEqual([5, 60, 360, 1440, 1440]);
    expect(staleAfterMs({ kind: 'RetentionQuery' })).toBe(6 * HOUR);
    expect(staleAfterMs({ interval: 'Day' })).toBe(6 * HOUR);
  });
});

describe(mustCompute.name, () => {
  const now = new Date('2026-01-10T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  it('computes always when forced, never from the cache only, and when stale or missing when blocking', () => {
    expect([mustCompute('force_blocking', ago(1), HOUR, now), mustCompute('force_cache', null, HOUR, now), mustCompute('force_cache', ago(10 * HOUR), HOUR, now)]).toEqual([true, false, false]);
    expect([mustCompute('blocking', null, HOUR, now), mustCompute('blocking', ago(HOUR - 1), HOUR, now), mustCompute('blocking', ago(HOUR), HOUR, now)]).toEqual([true, false, true]);
  });
});
