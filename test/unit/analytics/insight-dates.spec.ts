import { DateTime } from 'luxon';
import { ApiError } from '../../../src/common/errors/api-error';
import { bucketStarts, intervalStart, parseInsightDate, previousRange, resolveRange } from '../../../src/modules/analytics/model/insight-dates';

const NOW = DateTime.fromISO('2026-03-18T15:30:00Z');
const range = (dateFrom: string | null, dateTo: string | null, interval: 'hour' | 'day' | 'week' | 'month' = 'day', zone = 'UTC') =>
  resolveRange({ dateFrom, dateTo, interval, zone, now: NOW, explicit: false, earliest: () => null }, 0);

describe('insight dates', () => {
  it('reads relative dates from now in the project zone and rounds them to the day', () => {
    const r = range('-7d', null);
    expect([r.from.toISO(), r.to.toISO()]).toEqual(['2026-03-11T00:00:00.000Z', '2026-03-18T23:59:59.999Z']);
    expect(range('-24h', null, 'hour').from.toISO()).toBe('2026-03-17T15:00:00.000Z');
    expect(range('mStart', null).from.toISO()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('takes a date as the whole day in the project zone', () => {
    const r = range('2026-01-01', '2026-01-02', 'day', 'America/New_York');
    expect([r.from.toUTC().toISO(), r.to.toUTC().toISO()]).toEqual(['2026-01-01T05:00:00.000Z', '2026-01-03T04:59:59.999Z']);
  });

  it('starts weeks on Sunday, or on Monday when asked', () => {
    const thursday = DateTime.fromISO('2026-01-01T12:00:00Z', { zone: 'UTC' });
    expect(intervalStart(thursday, 'week', 0).toISODate()).toBe('2025-12-28');
    expect(intervalStart(thursday, 'week', 1).toISODate()).toBe('2025-12-29');
  });

  it('lists buckets across a DST change without gaps', () => {
    const r = range('2026-03-07', '2026-03-10', 'day', 'America/New_York');
    expect(bucketStarts(r, 'day', 0).map((b) => b.toISO())).toEqual([
      '2026-03-07T00:00:00.000-05:00', '2026-03-08T00:00:00.000-05:00', '2026-03-09T00:00:00.000-04:00', '2026-03-10T00:00:00.000-04:00',
    ]);
  });

  it('moves a range back by its own length for compare', () => {
    const previous = previousRange(range('2026-01-03', '2026-01-04'));
    expect([previous.from.toISO(), previous.to.toISO()]).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-02T23:59:59.999Z']);
  });

  it('refuses text that is no date, naming the parameter', () => {
    expect(() => parseInsightDate('soon', 'date_to', 'UTC', NOW)).toThrow(ApiError);
    try {
      parseInsightDate('soon', 'date_to', 'UTC', NOW);
    } catch (error) {
      expect((error as ApiError).attr).toBe('date_to');
    }
  });
});
