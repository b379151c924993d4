import { earliestBestRun, KeptRun } from './funnel-evaluation';

/**
 * Funnel correlation: which events (or property values) go with converting. Every actor who entered the
 * funnel is a success (reached the last step) or a failure; a candidate's contingency counts the
 * successes and failures that have it; its odds ratio uses a prior of 1 in every cell. Candidates seen
 * by fewer than min(25, 2 % of all actors) actors are dropped as insignificant.
 */

/** The part of an actor's funnel that correlation reads: converted or not, and the span its events count in. */
export interface ActorFunnelSpan {
  converted: boolean;
  /** The first step of the best run (the earliest such run), and where its window ends. */
  first: number;
  end: number;
}

/**
 * The span of an actor's funnel: from the first step of their earliest best run to its last step when
 * they converted, or else to the end of its window (never past the query's range).
 */
export function funnelSpan(runs: KeptRun[], stepCount: number, windowEnd: (start: number) => number, rangeEnd: number): ActorFunnelSpan | null {
  const best = earliestBestRun(runs);
  if (!best) return null;
  const steps = best.reached.length;
  const converted = steps === stepCount;
  const first = best.reached[0];
  return { converted, first, end: converted ? best.reached[steps - 1] : Math.min(windowEnd(first), rangeEnd) };
}

export interface CorrelationRow {
  name: string;
  successCount: number;
  failureCount: number;
  oddsRatio: number;
  correlationType: 'success' | 'failure';
}

export interface CorrelationResult {
  rows: CorrelationRow[];
  skewed: boolean;
}

const PRIOR = 1;
const MIN_PERSON_COUNT = 25;
const MIN_PERSON_SHARE = 0.02;
const ROWS_PER_SIDE = 10;
const SKEW = 10;

export function oddsRatio(success: number, failure: number, successTotal: number, failureTotal: number): number {
  return ((success + PRIOR) * (failureTotal - failure + PRIOR)) / ((successTotal - success + PRIOR) * (failure + PRIOR));
}

/** Counts each candidate once per actor, then ranks the significant ones. */
export class CorrelationTally {
  private successTotal = 0;
  private failureTotal = 0;
  private readonly counts = new Map<string, { success: number; failure: number }>();

  /** A tally counted elsewhere (by the engine): the totals (`kind` 0) and each candidate's counts (`kind` 1). */
  static fromCounts(rows: Array<{ kind: number; name: string; success: number; failure: number }>): CorrelationTally {
    const tally = new CorrelationTally();
    for (const row of rows) {
      if (row.kind === 0) [tally.successTotal, tally.failureTotal] = [row.success, row.failure];
      else tally.counts.set(row.name, { success: row.success, failure: row.failure });
    }
    return tally;
  }

  add(candidates: Iterable<string>, converted: boolean): void {
    if (converted) this.successTotal++;
    else this.failureTotal++;
    for (const name of new Set(candidates)) {
      const count = this.counts.get(name) ?? { success: 0, failure: 0 };
      if (converted) count.success++;
      else count.failure++;
      this.counts.set(name, count);
    }
  }

  /**
   * The ten strongest successes (odds ratio descending) and failures (ascending). `minimumActors` adds a
   * floor of its own (event properties keep only candidates of more than two actors).
   */
  result(minimumActors = 0): CorrelationResult {
    const S = this.successTotal;
    const F = this.failureTotal;
    if (S === 0 || F === 0) return { rows: [], skewed: true };
    const floor = Math.min(MIN_PERSON_COUNT, MIN_PERSON_SHARE * (S + F));
    const rows: CorrelationRow[] = [];
    for (const [name, { success, failure }] of this.counts) {
      if (success + failure < floor || success + failure <= minimumActors) continue;
      const odds = oddsRatio(success, failure, S, F);
      rows.push({ name, successCount: success, failureCount: failure, oddsRatio: odds, correlationType: odds > 1 ? 'success' : 'failure' });
    }
    const byName = (a: CorrelationRow, b: CorrelationRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    const successes = rows.filter((r) => r.correlationType === 'success').sort((a, b) => b.oddsRatio - a.oddsRatio || byName(a, b));
    const failures = rows.filter((r) => r.correlationType === 'failure').sort((a, b) => a.oddsRatio - b.oddsRatio || byName(a, b));
    return { rows: [...successes.slice(0, ROWS_PER_SIDE), ...failures.slice(0, ROWS_PER_SIDE)], skewed: S / F > SKEW || F / S > SKEW };
  }
}

/** A property value as correlation names it: text as is, anything else as JSON. */
export function propertyText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The candidates of one actor's events inside their funnel span: strictly after the first step, before its end. */
export function eventsInSpan<T>(times: number[], span: ActorFunnelSpan, at: (index: number) => T | null): T[] {
  const found: T[] = [];
  for (let i = 0; i < times.length; i++) {
    if (times[i] <= span.first || times[i] >= span.end) continue;
    const candidate = at(i);
    if (candidate !== null) found.push(candidate);
  }
  return found;
}
