import { asEngineError, ClickHouseEngineError } from './clickhouse-error';

/**
 * The statements an engine is running, so closing it can wait for them (the embedded engine aborts for the
 * whole process when a session closes under a running query; a client would cut its requests off), and
 * refuse new ones from then on. Every failure leaves as a {@link ClickHouseEngineError} with its code.
 */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new ClickHouseEngineError('The analytics engine is closed.', null));
    const running = work().catch((error: unknown) => {
      throw asEngineError(error);
    });
    this.running.add(running);
    const forget = () => this.running.delete(running);
    running.then(forget, forget);
    return running;
  }

  /** Whether nothing runs. */
  get idle(): boolean {
    return this.running.size === 0;
  }

  /** Refuses new work and resolves once what runs has settled. */
  async drain(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.running]);
  }
}
