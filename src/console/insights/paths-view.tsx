import { useMemo } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { ChartCanvas, PALETTE } from './chart';

/** One link of a paths result: from a step's item to the next step's, with the persons who took it. */
export interface PathLink {
  source: string;
  target: string;
  value: number;
}

/** The step prefix (`1_`) keeps the graph acyclic; labels show the item alone. */
export function pathLabel(node: string): string {
  return node.replace(/^\d+_/, '');
}

export function PathsView({ results }: { results: PathLink[] }) {
  const config = useMemo((): ChartConfiguration => {
    const nodes = new Set(results.flatMap((link) => [link.source, link.target]));
    return {
      type: 'sankey' as never,
      data: {
        datasets: [
          {
            label: 'Paths',
            data: results.map((link) => ({ from: link.source, to: link.target, flow: link.value })),
            labels: Object.fromEntries([...nodes].map((node) => [node, pathLabel(node)])),
            colorFrom: () => PALETTE[0],
            colorTo: () => PALETTE[2],
            colorMode: 'gradient',
          } as never,
        ],
      },
    };
  }, [results]);
  if (results.length === 0) return <p className="empty">No paths in this range.</p>;
  return (
    <>
      <ChartCanvas config={config} label="paths diagram" />
      <table className="props" data-testid="paths-table">
        <thead>
          <tr>
            <th>From</th>
            <th>To</th>
            <th>Persons</th>
          </tr>
        </thead>
        <tbody>
          {results.slice(0, 20).map((link) => (
            <tr key={`${link.source}>${link.target}`}>
              <td>{link.source}</td>
              <td>{link.target}</td>
              <td>{link.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
