import { useMemo } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { ChartCanvas, PALETTE } from './chart';
import type { InsightKind, TrendsDisplay } from './insight-query';

/** One series of a trends, stickiness or lifecycle result, as `/query/` answers it. */
export interface SeriesResult {
  label: string;
  data: number[];
  labels: string[];
  count: number;
  aggregated_value?: number;
  breakdown_value?: unknown;
  status?: string;
}

/** A series' total over the range: the aggregated value of number and table displays, else the sum of its points. */
export function seriesTotal(series: SeriesResult): number {
  return series.aggregated_value ?? series.count ?? series.data.reduce((sum, value) => sum + value, 0);
}

export function seriesName(series: SeriesResult): string {
  const breakdown = series.breakdown_value;
  return breakdown === undefined || breakdown === null || breakdown === '' ? series.label : `${series.label} · ${String(breakdown)}`;
}

/** Lifecycle stacks its four statuses, dormant below zero, as PostHog draws it. */
const LIFECYCLE_COLORS: Record<string, string> = { new: '#2bb673', returning: '#1d4aff', resurrecting: '#8e44ad', dormant: '#f04f58' };

export function TrendsView({ results, display, kind }: { results: SeriesResult[]; display: TrendsDisplay; kind: InsightKind }) {
  const config = useMemo(() => chartConfig(results, display, kind), [results, display, kind]);
  if (results.length === 0) return <p className="empty">No data for this range.</p>;
  if (kind === 'TrendsQuery' && display === 'BoldNumber') {
    return (
      <div className="big-number" data-testid="bold-number">
        {seriesTotal(results[0]).toLocaleString()}
      </div>
    );
  }
  if (kind === 'TrendsQuery' && display === 'ActionsTable') return <SeriesTable results={results} />;
  return (
    <>
      <ChartCanvas config={config} label={`${kind === 'LifecycleQuery' ? 'lifecycle' : kind === 'StickinessQuery' ? 'stickiness' : 'trend'} chart`} />
      <SeriesTable results={results} compact />
    </>
  );
}

function chartConfig(results: SeriesResult[], display: TrendsDisplay, kind: InsightKind): ChartConfiguration {
  const bars = kind !== 'TrendsQuery' || display === 'ActionsBar';
  const stacked = kind === 'LifecycleQuery';
  return {
    type: bars ? 'bar' : 'line',
    data: {
      labels: results[0]?.labels ?? [],
      datasets: results.map((series, index) => {
        const color = (stacked && LIFECYCLE_COLORS[series.status ?? '']) || PALETTE[index % PALETTE.length];
        return { label: seriesName(series), data: series.data, borderColor: color, backgroundColor: bars ? color : `${color}22`, fill: !bars, tension: 0 };
      }),
    },
    options: { scales: { x: { stacked }, y: { stacked, beginAtZero: true } }, plugins: { legend: { display: results.length > 1 } } },
  };
}

/** Each series with its total: the table display, and the legend under a chart. */
function SeriesTable({ results, compact = false }: { results: SeriesResult[]; compact?: boolean }) {
  return (
    <table className={compact ? 'props' : ''} data-testid="series-table">
      <thead>
        <tr>
          <th>Series</th>
          <th>Total</th>
        </tr>
      </thead>
      <tbody>
        {results.map((series, index) => (
          <tr key={index}>
            <td>
              <span style={{ color: PALETTE[index % PALETTE.length] }}>■</span> {seriesName(series)}
            </td>
            <td data-testid="series-total">{seriesTotal(series).toLocaleString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
