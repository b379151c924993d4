import { filterDate } from '../../../src/kernel/dates';

const at = (iso: string) => new Date(iso);
const iso = (value: string, now: string) => {
  const ms = filterDate(value, at(now));
  return ms === null ? null : new Date(ms).toISOString();
};

/**
 * Relative dates in flag conditions, as PostHog's flags service reads them: months and years are calendar steps that
 * keep the day when the target month has it and take the month's last day otherwise, as PostHog's
 * flags service (relativedelta, applied month by month) and posthog-node's local evaluation do.
 */
describe('filterDate relative months and years', () => {
  it.each<[string, string, string]>([
    // The flags service's own vectors.
    ['-1m', '2020-01-01T12:01:20.134Z', '2019-12-01T12:01:20.134Z'],
    ['-8m', '2020-01-01T12:01:20.134Z', '2019-05-01T12:01:20.134Z'],
    ['-1y', '2020-01-01T12:01:20.134Z', '2019-01-01T12:01:20.134Z'],
    ['12m', '2020-01-01T12:01:20.134Z', '2019-01-01T12:01:20.134Z'],
    ['-4m', '2020-04-03T00:00:00.000Z', '2019-12-03T00:00:00.000Z'],
    // A day the target month lacks becomes its last day, not a day of the following month.
    ['-1m', '2026-03-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z'],
    ['-1m', '2024-03-31T10:00:00.000Z', '2024-02-29T10:00:00.000Z'],
    ['-1m', '2026-05-31T10:00:00.000Z', '2026-04-30T10:00:00.000Z'],
    // Step by step: July 31 → June 30 → May 30.
    ['-2m', '2026-07-31T10:00:00.000Z', '2026-05-30T10:00:00.000Z'],
    ['-3m', '2026-05-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z'],
    ['-6m', '2026-11-23T00:36:00.000Z', '2026-05-23T00:36:00.000Z'],
    ['-1y', '2028-02-29T08:00:00.000Z', '2027-02-28T08:00:00.000Z'],
    ['-4y', '2028-02-29T08:00:00.000Z', '2024-02-28T08:00:00.000Z'],
    ['-0y', '2028-02-29T08:00:00.000Z', '2028-02-29T08:00:00.000Z'],
  ])('%s from %s is %s', (value, now, expected) => {
    expect(iso(value, now)).toBe(expected);
  });

  it('lands in the target calendar month, between 28-day and 31-day months back', () => {
    const wrong: string[] = [];
    const start = Date.UTC(2023, 0, 1, 6);
    for (let day = 0; day < 3 * 366; day++) {
      const now = new Date(start + day * 86_400_000);
      for (const months of [1, 2, 5, 13]) {
        const result = new Date(filterDate(`-${months}m`, now)!);
        const back = now.getTime() - result.getTime();
        // A missing day is clamped down to the month's last day, never carried into the next month.
        const ok =
          result.getUTCMonth() === (((now.getUTCMonth() - months) % 12) + 12) % 12 &&
          result.getUTCDate() <= now.getUTCDate() &&
          back >= months * 28 * 86_400_000 &&
          back <= months * 31 * 86_400_000;
        if (!ok) wrong.push(`-${months}m from ${now.toISOString()} gave ${result.toISOString()}`);
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
