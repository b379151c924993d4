import { ActorOutcome, KeptRun } from '../../../../src/modules/analytics/model/funnel-evaluation';

/**
 * Funnel trends and time to convert stated one actor at a time, from model/funnel-evaluation.ts: what the engine's
 * SQL (sql/funnel-outcome.sql.ts) computes for every actor at once, and what the differential test holds it to.
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

/** An actor's best step count per entrance period (the period holding a run's first step), from the runs that started in it. */
export function stepsByEntrancePeriod(runs: KeptRun[], periodOf: (at: number) => string): Map<string, number> {
  const best = new Map<string, number>();
  for (const run of runs) {
    const period = periodOf(run.reached[0]);
    best.set(period, Math.max(best.get(period) ?? 0, run.reached.length));
  }
  return best;
}

/** Whether an actor's steps in an entrance period put them among a trends point's persons. */
export function trendsActorSelected(steps: number, fromStep: number, toStep: number, dropOff: boolean): boolean {
  return dropOff ? steps >= fromStep + 1 && steps < toStep + 1 : steps >= toStep + 1;
}
