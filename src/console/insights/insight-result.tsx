import { FunnelView, type FunnelStep } from './funnel-view';
import type { EditorState } from './insight-query';
import { PathsView, type PathLink } from './paths-view';
import type { RetentionRow } from './retention-periods';
import { RetentionView } from './retention-view';
import { TrendsView, type SeriesResult } from './trends-view';

/** The view for a kind's result: charts for trends, stickiness and lifecycle, bars for funnels, a grid, a diagram. */
export function InsightResult({ state, result }: { state: Pick<EditorState, 'kind' | 'display'>; result: unknown }) {
  if (!Array.isArray(result)) return <p className="empty">No result yet.</p>;
  switch (state.kind) {
    case 'FunnelsQuery':
      return <FunnelView results={result as FunnelStep[]} />;
    case 'RetentionQuery':
      return <RetentionView results={result as RetentionRow[]} />;
    case 'PathsQuery':
      return <PathsView results={result as PathLink[]} />;
    default:
      return <TrendsView results={result as SeriesResult[]} display={state.display} kind={state.kind} />;
  }
}
