import { withDashboardFilters } from '../../../src/modules/dashboards/dashboard-filters';

describe(withDashboardFilters.name, () => {
  const chrome = { key: '$browser', value: 'Chrome', type: 'event' };
  const pro = { key: 'plan', value: 'pro', type: 'person' };
  const trends = { kind: 'TrendsQuery', series: [], dateRange: { date_from: '-30d', date_to: '-1d', explicitDate: true } };

  it('leaves a node alone when the filters say nothing, so the insight and its tile share one result', () => {
    expect(withDashboardFilters(trends, {})).toBe(trends);
    expect(withDashboardFilters(trends, { properties: [], date_from: null })).toBe(trends);
  });

  it('replaces the whole date range when the dashboard names either end', () => {
    expect(withDashboardFilters(trends, { date_from: '-7d' }).dateRange).toEqual({ date_from: '-7d', date_to: null });
    expect(withDashboardFilters(trends, { date_to: '2026-01-31', explicitDate: true }).dateRange).toEqual({ date_from: null, date_to: '2026-01-31', explicitDate: true });
  });

  it("ANDs the dashboard's properties with the node's, a list or a group", () => {
    expect(withDashboardFilters(trends, { properties: [chrome] }).properties).toEqual({ type: 'AND', values: [chrome] });
    expect(withDashboardFilters({ ...trends, properties: [pro] }, { properties: [chrome] }).properties).toEqual({
      type: 'AND', values: [{ type: 'AND', values: [pro] }, { type: 'AND', values: [chrome] }],
    });
    const group = { type: 'OR', values: [{ type: 'AND', values: [pro] }] };
    expect(withDashboardFilters({ ...trends, properties: group }, { properties: [chrome] }).properties).toEqual({ type: 'AND', values: [group, { type: 'AND', values: [chrome] }] });
  });

  it('replaces the breakdown of trends and funnels only', () => {
    const breakdown = { breakdown: '$os', breakdown_type: 'event' };
    expect(withDashboardFilters(trends, { breakdown_filter: breakdown }).breakdownFilter).toEqual(breakdown);
    expect(withDashboardFilters({ kind: 'FunnelsQuery' }, { breakdown_filter: breakdown }).breakdownFilter).toEqual(breakdown);
    expect(withDashboardFilters({ kind: 'RetentionQuery' }, { breakdown_filter: breakdown }).breakdownFilter).toBeUndefined();
  });
});
