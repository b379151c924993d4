import type { PathEdge } from '../model/path-edges';

/** PostHog's path edges: `{source, target, value, average_conversion_time}` (ms), heaviest first. */
export function pathEdges(edges: PathEdge[]) {
  return edges.map((edge) => ({ source: edge.source, target: edge.target, value: edge.value, average_conversion_time: edge.averageConversionTime }));
}
