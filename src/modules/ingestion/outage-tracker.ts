/** What to log about a dependency's health: nothing while its state holds, one line when it changes. */
export type OutageChange =
  | { kind: 'began' }
  | { kind: 'ended'; failures: number; durationMs: number }
  | null;

/**
 * Turns a stream of successes and failures into state changes, so an outage writes two log lines (it began, it
 * ended with how many requests it refused and for how long) instead of one per refused request.
 */
export class OutageTracker {
  private since: number | null = null;
  private failures = 0;

  failed(nowMs: number): OutageChange {
    this.failures += 1;
    if (this.since !== null) return null;
    this.since = nowMs;
    return { kind: 'began' };
  }

  succeeded(nowMs: number): OutageChange {
    if (this.since === null) return null;
    const change: OutageChange = { kind: 'ended', failures: this.failures, durationMs: nowMs - this.since };
    this.since = null;
    this.failures = 0;
    return change;
  }
}
