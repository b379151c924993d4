import { ActorOutcome, KeptRun, mean } from './funnel-evaluation';

/**
 * The two other ways to look at a funnel, from the same per-actor evaluation. Time to convert: a
 * histogram of each actor's time from `from` to `to` step (the sum of their average step times). Funnel
 * trends: per entrance period (the period holding a run's first step), the share of actors who reached
 * `from` and went on to `to`.
 */

/** An actor's time from step `from` to step `to` (0-based), or null when they did not reach `to`. */
export function conversionSeconds(outcome: ActorOutcome, from: number, to: number): number | null {
  if (outcome.steps < to + 1) return null;
  let total = 0;
  for (let step = from + 1; step <= to; step++) {
    const seconds = outcome.averageSeconds[step];
    if (seconds === null || seconds === undefined) return null;
    total += seconds;
  }
  return total;
}

export interface Histogram {
  bins: Array<[number, number]>;
  averageConversionTime: number | null;
}

/**
 * PostHog's time-to-convert histogram: from the floor of the fastest time to the ceiling of the slowest,
 * `binCount` bins (1–90 when given; otherwise the cube root of the sample count, 3–60) of a whole number
 * of seconds (60 when every time is the same), plus one closing bin; the average rounded to 2 decimals.
 */
export function conversionHistogram(samples: number[], binCount: number | null): Histogram {
  if (samples.length === 0) return { bins: [], averageConversionTime: null };
  const from = Math.floor(Math.min(...samples));
  const to = Math.ceil(Math.max(...samples));
  const count = binCount === null ? Math.min(60, Math.max(3, Math.ceil(Math.cbrt(samples.length)))) : Math.min(90, Math.max(1, binCount));
  const raw = Math.ceil((to - from) / count);
  const width = raw > 0 ? raw : 60;
  const counts = new Array<number>(count + 1).fill(0);
  for (const seconds of samples) counts[Math.min(count, Math.floor((seconds - from) / width))]++;
  const average = Math.round((mean(samples) ?? 0) * 100) / 100;
  return { bins: counts.map((n, k) => [from + k * width, n]), averageConversionTime: average };
}

/** An actor's best step count per entrance period, from the runs that started in it. */
export function stepsByEntrancePeriod(runs: KeptRun[], periodOf: (at: number) => string): Map<string, number> {
  const best = new Map<string, number>();
  for (const run of runs) {
    const period = periodOf(run.reached[0]);
    best.set(period, Math.max(best.get(period) ?? 0, run.reached.length));
  }
  return best;
}

/** Per entrance period: actors who reached `from` and those who also reached `to` (0-based steps). */
export class ConversionTrendTally {
  private readonly reached = new Map<string, { from: number; to: number }>();

  constructor(private readonly fromStep: number, private readonly toStep: number) {}

  add(periods: Map<string, number>): void {
    for (const [period, steps] of periods) {
      const counts = this.reached.get(period) ?? { from: 0, to: 0 };
      if (steps >= this.fromStep + 1) counts.from++;
      if (steps >= this.toStep + 1) counts.to++;
      this.reached.set(period, counts);
    }
  }

  /** Conversion rate in percent per period, rounded to 2 decimals; 0 where nobody reached `from`. */
  rates(periods: string[]): number[] {
    return periods.map((period) => {
      const counts = this.reached.get(period);
      return counts && counts.from > 0 ? Math.round((counts.to / counts.from) * 10_000) / 100 : 0;
    });
  }
}

/** Whether an actor's steps in an entrance period put them among a trends point's persons. */
export function trendsActorSelected(steps: number, fromStep: number, toStep: number, dropOff: boolean): boolean {
  return dropOff ? steps >= fromStep + 1 && steps < toStep + 1 : steps >= toStep + 1;
}
