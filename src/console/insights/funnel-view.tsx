/** One step of a funnel result, as `/query/` answers it. */
export interface FunnelStep {
  name: string;
  custom_name?: string | null;
  order: number;
  count: number;
  breakdown_value?: unknown;
}

/** Percent of `part` in `whole`, to one decimal; an empty whole converts nobody. */
export function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${(Math.round((part / whole) * 1000) / 10).toString()}%`;
}

/** Bars per step, with the conversion from the first step and from the step before; one block per breakdown value. */
export function FunnelView({ results }: { results: FunnelStep[] | FunnelStep[][] }) {
  const groups = (results.length > 0 && Array.isArray(results[0]) ? results : [results]) as FunnelStep[][];
  if (groups.every((steps) => steps.length === 0)) return <p className="empty">No one entered this funnel in this range.</p>;
  return (
    <div data-testid="funnel">
      {groups.map((steps, index) => (
        <div key={index} className="funnel-group">
          {groups.length > 1 && <h3>{String(steps[0]?.breakdown_value ?? '')}</h3>}
          {steps.map((step, i) => {
            const first = steps[0].count;
            return (
              <div className="funnel-step" key={step.order} data-testid="funnel-step">
                <div className="row">
                  <strong>
                    {i + 1}. {step.custom_name ?? step.name}
                  </strong>
                  <span data-testid="funnel-count">{step.count.toLocaleString()} persons</span>
                  <span className="muted" data-testid="funnel-conversion">
                    {percent(step.count, first)} of the first step
                  </span>
                  {i > 0 && <span className="muted">· {percent(step.count, steps[i - 1].count)} of the step before</span>}
                </div>
                <div className="funnel-bar">
                  <div style={{ width: first === 0 ? '0%' : `${(step.count / first) * 100}%` }} />
                </div>
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}
