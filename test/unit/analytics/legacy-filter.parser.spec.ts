import { DateTime } from 'luxon';
import { ApiError } from '../../../src/common/errors/api-error';
import { targetSeries } from '../../../src/modules/analytics/parsers/actors-request.parser';
import { insightKindOf, legacyBreakdown, parseLegacyFilter } from '../../../src/modules/analytics/parsers/legacy-filter.parser';

const context = { timezone: 'UTC', weekStartDay: 0 as const, now: DateTime.fromISO('2026-01-10T12:00:00Z'), earliest: () => null, actions: new Map() };
const attrOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as ApiError).attr;
  }
  throw new Error('expected an ApiError');
};

describe(parseLegacyFilter.name, () => {
  it('sorts series by order and numbers them, missing order first', () => {
    const query = parseLegacyFilter({ events: JSON.stringify([{ id: 'b', order: 1 }, { id: 'a', order: 0 }, { id: 'c' }]) }, context);
    expect(query.series.map((s) => [s.event, s.index])).toEqual([['c', 0], ['a', 1], ['b', 2]]);
  });

  it('takes JSON values from a body as they are and text values from a query string', () => {
    const fromBody = parseLegacyFilter({ events: [{ id: '$pageview', math: 'dau' }], interval: 'Week' }, context);
    expect([fromBody.series[0].math, fromBody.interval]).toEqual(['dau', 'week']);
  });

  it('picks stickiness and lifecycle from insight or shown_as', () => {
    expect(insightKindOf({ shown_as: 'Stickiness' })).toBe('stickiness');
    expect(insightKindOf({ insight: 'lifecycle' })).toBe('lifecycle');
    expect(insightKindOf({})).toBe('trends');
  });

  it('reads breakdowns of every kind', () => {
    expect(legacyBreakdown({ breakdown: '$browser' }, 'ActionsLineGraph')).toMatchObject({ kind: 'property', limit: 25, properties: [{ key: '$browser', type: 'event' }] });
    expect(legacyBreakdown({ breakdown: '[3, "all"]', breakdown_type: 'cohort' }, 'ActionsLineGraph')).toMatchObject({ kind: 'cohort', cohorts: [3, 'all'] });
    expect(legacyBreakdown({ breakdown: 'plan', breakdown_type: 'person' }, 'WorldMap')).toMatchObject({ limit: 300 });
    expect(attrOf(() => legacyBreakdown({ breakdown: 'name', breakdown_type: 'group' }, 'ActionsLineGraph'))).toBe('breakdown_group_type_index');
    expect(attrOf(() => legacyBreakdown({ breakdown: 'x', breakdown_type: 'session' }, 'ActionsLineGraph'))).toBe('breakdown_type');
  });

  it('refuses unique_group without a group type and more than 20 series', () => {
    expect(attrOf(() => parseLegacyFilter({ events: [{ id: 'x', math: 'unique_group' }] }, context))).toBe('math_group_type_index');
    expect(attrOf(() => parseLegacyFilter({ events: Array.from({ length: 21 }, () => ({ id: 'x' })) }, context))).toBe('events');
  });
});

describe(targetSeries.name, () => {
  const query = parseLegacyFilter({ events: [{ id: 'a' }, { id: 'b', math: 'dau' }] }, context);

  it('finds the series by event and math, or by entity_order', () => {
    expect(targetSeries(query, { entity_id: 'b', entity_math: 'dau' }).series.map((s) => s.event)).toEqual(['b']);
    expect(targetSeries(query, { entity_order: '0' }).series.map((s) => s.event)).toEqual(['a']);
  });

  it('makes a new series for an event the insight does not have, and refuses an action series it does not have', () => {
    expect(targetSeries(query, { entity_id: 'c' }).series.map((s) => [s.event, s.math])).toEqual([['c', 'total']]);
    expect(attrOf(() => targetSeries(query, { entity_id: '1', entity_type: 'actions' }))).toBe('entity_id');
    expect(attrOf(() => targetSeries(query, { entity_id: '1', entity_type: 'cohorts' }))).toBe('entity_type');
    expect(attrOf(() => targetSeries(query, {}))).toBe('entity_id');
    expect(targetSeries(query, {}, true).series.map((s) => s.event)).toEqual(['a']);
  });
});
