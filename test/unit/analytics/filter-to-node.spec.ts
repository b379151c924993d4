import { DateTime } from 'luxon';
import type { InsightQuery } from '../../../src/modules/analytics/model/insight-query';
import { parseFunnelFilter } from '../../../src/modules/analytics/parsers/funnel-filter.parser';
import { filterToNode } from '../../../src/modules/analytics/parsers/filter-to-node';
import type { FilterInput } from '../../../src/modules/analytics/parsers/filter-values';
import { ParseContext, parseLegacyFilter } from '../../../src/modules/analytics/parsers/legacy-filter.parser';
import { parsePathFilter } from '../../../src/modules/analytics/parsers/path-filter.parser';
import { nodeToFilter } from '../../../src/modules/analytics/parsers/query-node.parser';
import { parseRetentionFilter } from '../../../src/modules/analytics/parsers/retention-filter.parser';
import { actionMatcher } from '../../../src/modules/actions/action-matcher';

const signedUp = actionMatcher({ id: 7, name: 'Signed up', steps: [{ event: 'signed_up', properties: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, url: null, url_matching: null }] });
const context: ParseContext = { timezone: 'UTC', weekStartDay: 0, now: DateTime.fromISO('2026-01-10T12:00:00Z'), earliest: () => null, actions: new Map([[7, signedUp]]) };

/** A legacy filter parsed as the insight it names, as the query API parses a node of that kind. */
function parse(kind: string, input: FilterInput): InsightQuery {
  if (kind === 'funnels') return parseFunnelFilter(input, context);
  if (kind === 'retention') return parseRetentionFilter(input, context, 'query');
  if (kind === 'paths') return parsePathFilter(input, context, []);
  return parseLegacyFilter(input, context, kind as InsightQuery['kind']);
}

const pageview = { id: '$pageview', type: 'events', order: 0 };
const cases: Array<[string, FilterInput]> = [
  ['a plain trend', { events: [pageview] }],
  ['a trend with maths, filters, a breakdown, a formula and compare', {
    insight: 'TRENDS', events: [{ ...pageview, math: 'dau', custom_name: 'Visitors' }, { id: 'buy', order: 1, math: 'sum', math_property: 'price', properties: [{ key: 'plan', value: 'pro', type: 'person' }] }],
    actions: [{ id: 7, type: 'actions', order: 2 }], date_from: '-14d', interval: 'week', properties: [{ key: '$browser', value: 'Chrome' }], filter_test_accounts: true,
    breakdown: '$os', breakdown_limit: 5, formula: 'A+B', compare: true, display: 'ActionsBar',
  }],
  ['a trend saved from a query string, its lists as JSON text', { events: JSON.stringify([pageview]), properties: '[{"key":"$browser","value":"Chrome"}]', explicit_date: 'true', date_from: '2026-01-01', date_to: '2026-01-05' }],
  ['stickiness by shown_as', { shown_as: 'Stickiness', events: [pageview], display: 'ActionsBar' }],
  ['lifecycle', { insight: 'LIFECYCLE', events: [pageview], interval: 'week' }],
  ['a funnel with exclusions, a window and a breakdown', {
    insight: 'FUNNELS', events: [pageview, { id: 'buy', order: 2 }], actions: [{ id: 7, order: 1 }], funnel_order_type: 'strict', funnel_window_interval: 3,
    funnel_window_interval_unit: 'day', exclusions: [{ id: 'quit', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }], breakdown: '$browser', breakdown_attribution_type: 'first_touch',
  }],
  ['retention of an action', { insight: 'RETENTION', target_entity: { id: 7, type: 'actions' }, returning_entity: { id: '$pageview', type: 'events' }, period: 'Week', total_intervals: 6, retention_type: 'retention_first_time', date_to: '2026-01-08' }],
  ['paths after a funnel step', {
    insight: 'PATHS', include_event_types: ['$pageview', 'custom_event'], start_point: '/home', step_limit: 4, path_groupings: ['/docs*'],
    funnel_paths: 'funnel_path_after_step', funnel_filter: { events: [pageview, { id: 'buy', order: 1 }], funnel_step: 1 },
  }],
];

describe(filterToNode.name, () => {
  it.each(cases)('turns %s into a node that asks the same question', (_, filters) => {
    const node = filterToNode(filters);
    const { kind, input } = nodeToFilter(node);
    const direct = parse(kind, filters);
    expect(parse(kind, input)).toEqual(direct);
    expect(node.kind).toBe({ trends: 'TrendsQuery', stickiness: 'StickinessQuery', lifecycle: 'LifecycleQuery', funnels: 'FunnelsQuery', retention: 'RetentionQuery', paths: 'PathsQuery' }[direct.kind]);
  });

  it('writes the node as PostHog names its fields', () => {
    expect(filterToNode({ events: [{ ...pageview, math: 'dau' }], date_from: '-7d', breakdown: '$browser', display: 'ActionsPie', filter_test_accounts: true })).toEqual({
      kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '-7d' }, filterTestAccounts: true,
      trendsFilter: { display: 'ActionsPie' }, breakdownFilter: { breakdown: '$browser' },
    });
  });

  it('refuses an insight it does not know, naming the ones it does', () => {
    expect(() => filterToNode({ insight: 'SQL' })).toThrow('filters.insight "SQL" is not an insight: use one of TRENDS, STICKINESS, LIFECYCLE, FUNNELS, RETENTION, PATHS.');
  });
});
