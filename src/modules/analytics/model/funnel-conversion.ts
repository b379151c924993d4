/**
 * The two other ways to look at a funnel, from the engine's per-actor evaluation. Time to convert: a histogram
 * of each actor's time from `from` to `to` step (the sum of their average step times). Funnel trends: per
 * entrance period (the period holding a run's first step), the share of actors who reached `from` and went on
 * to `to`.
 */

/** Conversion times that share a whole second: how many, the least and greatest, their sum. */
export interface SecondGroup {
  second: number;
  actors: number;
  least: number;
  greatest: number;
  total: number;
}

export interface Histogram {
  bins: Array<[number, number]>;
  averageConversionTime: number | null;
}

/**
 * PostHog's time-to-convert histogram: from the floor of the fastest time to the ceiling of the slowest,
 * `binCount` bins (1–90 when given; otherwise the cube root of the sample count, 3–60) of a whole number
 * of seconds (60 when every time is the same), plus one closing bin; the average rounded to 2 decimals.
 * Bins start at whole seconds and are whole seconds wide, so times grouped by whole second fall into the
 * same bins as the times themselves.
 */
export function conversionHistogram(groups: SecondGroup[], binCount: number | null): Histogram {
  if (groups.length === 0) return { bins: [], averageConversionTime: null };
  let [samples, least, greatest, total] = [0, Infinity, -Infinity, 0];
  for (const group of groups) {
    samples += group.actors;
    least = Math.min(least, group.least);
    greatest = Math.max(greatest, group.greatest);
    total += group.total;
  }
  const from = Math.floor(least);
  const to = Math.ceil(greatest);
  const count = binCount === null ? Math.min(60, Math.max(3, Math.ceil(Math.cbrt(samples)))) : Math.min(90, Math.max(1, binCount));
  const raw = Math.ceil((to - from) / count);
  const width = raw > 0 ? raw : 60;
  const counts = new Array<number>(count + 1).fill(0);
  for (const group of groups) counts[Math.min(count, Math.floor((group.second - from) / width))] += group.actors;
  const average = Math.round((total / samples) * 100) / 100;
  return { bins: counts.map((n, k) => [from + k * width, n]), averageConversionTime: average };
}

/** Conversion rate in percent per period, rounded to 2 decimals; 0 where nobody reached `from`. */
export function conversionRates(periods: string[], entered: ReadonlyMap<string, number>, converted: ReadonlyMap<string, number>): number[] {
  return periods.map((period) => {
    const from = entered.get(period) ?? 0;
    return from > 0 ? Math.round(((converted.get(period) ?? 0) / from) * 10_000) / 100 : 0;
  });
}
