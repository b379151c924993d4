/**
 * Turns a stream of successes and failures into state changes, so an outage writes two log lines (it began, it
 * ended with how many requests it refused and for how long) instead of one per refused request.
 */
export class OutageTracker {
  private since: number | null = null;
  private failures = 0;

  /** True for the failure that begins an outage. */
  failed(nowMs: number): boolean {
    this.failures += 1;
    if (this.since !== null) return false;
    this.since = nowMs;
    return true;
  }

  /** The outage this success ends, or null when there was none. */
  succeeded(nowMs: number): { failures: number; durationMs: number } | null {
    if (this.since === null) return null;
    const ended = { failures: this.failures, durationMs: nowMs - this.since };
    this.since = null;
    this.failures = 0;
    return ended;
  }
}
