import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/**
 * Splits a long loop of synchronous steps into slices of about `sliceMs`: between slices the loop waits one
 * event-loop turn, so requests that arrived meanwhile are served instead of waiting for the whole loop.
 * Checking costs a clock read; a loop that finishes within one slice never waits.
 */
export class EventLoopSlices {
  private sliceStarted = performance.now();

  constructor(private readonly sliceMs: number) {}

  /** Whether the current slice has used its time: then `await nextSlice()` before the next step. */
  due(): boolean {
    return performance.now() - this.sliceStarted >= this.sliceMs;
  }

  async nextSlice(): Promise<void> {
    await nextTurn();
    this.sliceStarted = performance.now();
  }
}
