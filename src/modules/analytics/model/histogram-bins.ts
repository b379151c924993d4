import type { HistogramBin } from './insight-query';

/**
 * PostHog's numeric breakdown bins (`breakdown_histogram_bin_count`): quantile levels 0, 1/n, …, 1 written with two
 * decimals, the values at them floored to two decimals and repeated edges dropped; consecutive edges make the bins,
 * the last one's top raised by 0.01 so the largest value falls inside, and a single edge one bin of its own.
 */
export function histogramLevels(binCount: number): number[] {
  if (binCount <= 1) return [0, 1];
  return Array.from({ length: binCount + 1 }, (_, i) => Number((i / binCount).toFixed(2)));
}

/** A number as Python writes a float, as PostHog's labels show them: `10.0`, `2.5`. */
function pythonFloat(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

export function histogramBins(edges: number[]): HistogramBin[] {
  const finite = edges.filter((edge) => Number.isFinite(edge));
  if (finite.length === 0) return [];
  const bounds = finite.length === 1 ? [finite[0], finite[0]] : finite;
  return bounds.slice(0, -1).map((lo, i) => {
    const hi = i === bounds.length - 2 ? bounds[i + 1] + 0.01 : bounds[i + 1];
    return { lo, hi, label: `[${pythonFloat(lo)},${pythonFloat(hi)}]` };
  });
}

/** A bin's bounds from its label (`[1.0,5.01]`), as a persons request names it; null when it is no bin. */
export function binOfLabel(label: string): { lo: number; hi: number } | null {
  try {
    const parsed: unknown = JSON.parse(label);
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((n) => typeof n === 'number' && Number.isFinite(n))) return { lo: parsed[0], hi: parsed[1] };
  } catch {
    // Not JSON: no bin.
  }
  return null;
}
