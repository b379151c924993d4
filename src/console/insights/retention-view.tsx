import { percent } from './funnel-view';
import { periodsSeen, type RetentionRow } from './retention-periods';

/** The cohort grid: each row a start period and its size, each cell the share that came back in that period. */
export function RetentionView({ results }: { results: RetentionRow[] }) {
  if (results.length === 0) return <p className="empty">No cohorts in this range.</p>;
  const periods = Math.max(...results.map((row) => row.values.length));
  const seen = periodsSeen(results);
  return (
    <table className="retention" data-testid="retention-grid">
      <thead>
        <tr>
          <th>Cohort</th>
          <th>Persons</th>
          {Array.from({ length: periods }, (_, i) => (
            <th key={i}>{i === 0 ? 'Day 0' : `Day ${i}`}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {results.map((row, r) => {
          const size = row.values[0]?.count ?? 0;
          return (
            <tr key={row.date} data-date={row.date}>
              <td>{new Date(row.date).toLocaleDateString(undefined, { timeZone: 'UTC' })}</td>
              <td>{size}</td>
              {row.values.map((value, i) => {
                if (i >= seen[r]) return <td key={i} className="future" />;
                const share = size === 0 ? 0 : value.count / size;
                return (
                  <td key={i} className="cell" data-count={value.count} title={`${value.count} persons`} style={{ background: `rgba(29, 74, 255, ${0.15 + share * 0.85})` }}>
                    {percent(value.count, size)}
                  </td>
                );
              })}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
