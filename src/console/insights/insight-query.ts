import type { PropertyFilter } from '../property-filter';

/**
 * The editor's state and the query node it stands for. The console builds the same `InsightVizNode` a script would
 * POST to `/query/` or save on an insight, so what the console shows can always be reproduced through the API.
 */
export type InsightKind = 'TrendsQuery' | 'FunnelsQuery' | 'RetentionQuery' | 'PathsQuery' | 'StickinessQuery' | 'LifecycleQuery';
export type TrendsDisplay = 'ActionsLineGraph' | 'ActionsBar' | 'BoldNumber' | 'ActionsTable';
export type Interval = 'hour' | 'day' | 'week' | 'month';

export interface EditorState {
  kind: InsightKind;
  /** Trends and stickiness: the series; funnels: the steps; retention: the start and return events; lifecycle: the first. */
  events: string[];
  properties: PropertyFilter[];
  breakdown: { property: string; type: 'event' | 'person' } | null;
  dateFrom: string;
  interval: Interval;
  display: TrendsDisplay;
}

export const KINDS: Array<[InsightKind, string]> = [
  ['TrendsQuery', 'Trends'],
  ['FunnelsQuery', 'Funnels'],
  ['RetentionQuery', 'Retention'],
  ['PathsQuery', 'Paths'],
  ['StickinessQuery', 'Stickiness'],
  ['LifecycleQuery', 'Lifecycle'],
];

export const DISPLAYS: Array<[TrendsDisplay, string]> = [
  ['ActionsLineGraph', 'Line'],
  ['ActionsBar', 'Bar'],
  ['BoldNumber', 'Number'],
  ['ActionsTable', 'Table'],
];

export const DATE_RANGES: Array<[string, string]> = [
  ['-24h', 'Last 24 hours'],
  ['-7d', 'Last 7 days'],
  ['-14d', 'Last 14 days'],
  ['-30d', 'Last 30 days'],
  ['-90d', 'Last 90 days'],
  ['mStart', 'This month'],
  ['all', 'All time'],
];

/** What each kind reads from `events`: how many it needs at least and at most. */
export const EVENT_SLOTS: Record<InsightKind, { min: number; max: number; labels: (index: number) => string }> = {
  TrendsQuery: { min: 1, max: 10, labels: (i) => `Series ${String.fromCharCode(65 + i)}` },
  StickinessQuery: { min: 1, max: 10, labels: (i) => `Series ${String.fromCharCode(65 + i)}` },
  FunnelsQuery: { min: 2, max: 10, labels: (i) => `Step ${i + 1}` },
  RetentionQuery: { min: 2, max: 2, labels: (i) => (i === 0 ? 'Start event' : 'Return event') },
  LifecycleQuery: { min: 1, max: 1, labels: () => 'Event' },
  PathsQuery: { min: 0, max: 0, labels: () => '' },
};

export function defaultState(kind: InsightKind = 'TrendsQuery'): EditorState {
  return { kind, events: defaultEvents(kind), properties: [], breakdown: null, dateFrom: '-7d', interval: 'day', display: 'ActionsLineGraph' };
}

/** Switching kinds keeps what carries over and fills the slots the new kind needs. */
export function switchKind(state: EditorState, kind: InsightKind): EditorState {
  const slots = EVENT_SLOTS[kind];
  const events = state.events.slice(0, slots.max);
  while (events.length < slots.min) events.push(events[events.length - 1] ?? '$pageview');
  return { ...state, kind, events, breakdown: kind === 'TrendsQuery' || kind === 'FunnelsQuery' ? state.breakdown : null };
}

function defaultEvents(kind: InsightKind): string[] {
  return Array.from({ length: EVENT_SLOTS[kind].min }, () => '$pageview');
}

type Node = Record<string, unknown>;

/** The `InsightVizNode` for the editor's state. */
export function toQuery(state: EditorState): Node {
  const series = state.events.map((event) => ({ kind: 'EventsNode', event, name: event, math: 'total' }));
  const common: Node = { kind: state.kind, dateRange: { date_from: state.dateFrom }, properties: state.properties };
  const breakdownFilter = state.breakdown ? { breakdownFilter: { breakdown: state.breakdown.property, breakdown_type: state.breakdown.type } } : {};
  const sources: Record<InsightKind, () => Node> = {
    TrendsQuery: () => ({ ...common, series, interval: state.interval, trendsFilter: { display: state.display }, ...breakdownFilter }),
    StickinessQuery: () => ({ ...common, series, interval: state.interval }),
    LifecycleQuery: () => ({ ...common, series: series.slice(0, 1), interval: state.interval }),
    FunnelsQuery: () => ({ ...common, series, funnelsFilter: { funnelVizType: 'steps', funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' }, ...breakdownFilter }),
    RetentionQuery: () => ({
      ...common,
      retentionFilter: {
        targetEntity: { id: state.events[0], name: state.events[0], type: 'events' },
        returningEntity: { id: state.events[1], name: state.events[1], type: 'events' },
        period: 'Day',
        totalIntervals: 8,
        retentionType: 'retention_first_time',
      },
    }),
    PathsQuery: () => ({ ...common, pathsFilter: { includeEventTypes: ['$pageview'], stepLimit: 5 } }),
  };
  return { kind: 'InsightVizNode', source: sources[state.kind]() };
}

/** The editor's state for a saved query, reading what the editor can show and defaulting the rest. */
export function fromQuery(node: Node | null | undefined): EditorState {
  const source = ((node?.kind === 'InsightVizNode' ? node.source : node) ?? {}) as Node;
  const kind = (KINDS.some(([k]) => k === source.kind) ? source.kind : 'TrendsQuery') as InsightKind;
  const state = defaultState(kind);
  const series = Array.isArray(source.series) ? (source.series as Node[]) : [];
  const retention = (source.retentionFilter ?? {}) as { targetEntity?: Node; returningEntity?: Node };
  const events = kind === 'RetentionQuery' ? [retention.targetEntity?.id, retention.returningEntity?.id] : series.map((entry) => entry.event);
  const breakdown = source.breakdownFilter as { breakdown?: unknown; breakdown_type?: string } | undefined;
  const dateFrom = (source.dateRange as { date_from?: string } | undefined)?.date_from;
  return {
    ...state,
    events: events.every((event) => typeof event === 'string') && events.length >= EVENT_SLOTS[kind].min ? (events as string[]) : state.events,
    properties: Array.isArray(source.properties) ? (source.properties as PropertyFilter[]) : [],
    breakdown: typeof breakdown?.breakdown === 'string' ? { property: breakdown.breakdown, type: breakdown.breakdown_type === 'person' ? 'person' : 'event' } : null,
    dateFrom: typeof dateFrom === 'string' ? dateFrom : state.dateFrom,
    interval: (['hour', 'day', 'week', 'month'].includes(source.interval as string) ? source.interval : state.interval) as Interval,
    display: (DISPLAYS.some(([d]) => d === (source.trendsFilter as Node | undefined)?.display) ? (source.trendsFilter as Node).display : state.display) as TrendsDisplay,
  };
}

/** A name for an unsaved insight: what it counts. */
export function describe(state: EditorState): string {
  const label = KINDS.find(([kind]) => kind === state.kind)![1];
  if (state.kind === 'PathsQuery') return 'Paths of $pageview';
  if (state.kind === 'FunnelsQuery') return `Funnel ${state.events.join(' → ')}`;
  return `${label}: ${state.events.join(', ')}`;
}
