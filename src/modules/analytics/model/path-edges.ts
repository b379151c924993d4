/** One edge of a paths insight: how many paths took it, and their mean time across it (ms). */
export interface PathEdge {
  source: string;
  target: string;
  value: number;
  averageConversionTime: number;
}

/**
 * The edges still reachable from a first step (a key `1_…`) once the heaviest were kept: PostHog drops the others
 * when no weight bounds are asked for, so that the chart has no floating pieces.
 */
export function reachableEdges<T extends { source: string; target: string }>(edges: T[]): T[] {
  const reached = new Set(edges.filter((e) => e.source.startsWith('1_')).map((e) => e.source));
  let grew = true;
  while (grew) {
    grew = false;
    for (const edge of edges) {
      if (reached.has(edge.source) && !reached.has(edge.target)) {
        reached.add(edge.target);
        grew = true;
      }
    }
  }
  return edges.filter((e) => reached.has(e.source));
}
