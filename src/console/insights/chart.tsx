import { useEffect, useRef } from 'react';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { Flow, SankeyController } from 'chartjs-chart-sankey';

// Only what the console draws is registered, which keeps Chart.js a third of its full size.
Chart.register(LineController, LineElement, PointElement, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip, Filler, SankeyController, Flow);
// Motion only for readers who have not asked for less (browser tests ask, so a drawn chart is final at once).
if (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;

export const PALETTE = ['#1d4aff', '#f04f58', '#2bb673', '#f7a501', '#8e44ad', '#16a3b8', '#e66ac0', '#6b7280', '#a3591a', '#0f7b6c'];

/** A Chart.js chart on a canvas, built again whenever its configuration changes. */
export function ChartCanvas({ config, label }: { config: ChartConfiguration; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const chart = new Chart(canvas.current!, config);
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart-box">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
