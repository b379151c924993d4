interface Waiter<V> {
  resolve: (value: V | null) => void;
  reject: (error: unknown) => void;
}

/**
 * Loads the keys asked for within one turn of the event loop with one call. Under load many `/decide/`
 * requests are parsed in the same turn, and each would otherwise pay its own database round trip, which
 * on a small machine costs more than evaluating all of its flags. A lone request waits only for the end
 * of the current turn.
 */
export class KeyBatcher<V> {
  private pending = new Map<string, Array<Waiter<V>>>();
  private scheduled = false;

  constructor(
    private readonly loadMany: (keys: string[]) => Promise<ReadonlyMap<string, V>>,
    private readonly maxBatch = 100,
  ) {}

  /** The value of `key`, or null when `loadMany` does not return it; rejects when its batch fails. */
  load(key: string): Promise<V | null> {
    return new Promise<V | null>((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = [...this.pending];
    this.pending = new Map();
    this.scheduled = false;
    for (let start = 0; start < batch.length; start += this.maxBatch) void this.settle(batch.slice(start, start + this.maxBatch));
  }

  private async settle(batch: Array<[string, Array<Waiter<V>>]>): Promise<void> {
    try {
      const values = await this.loadMany(batch.map(([key]) => key));
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(values.get(key) ?? null);
    } catch (error) {
      for (const [, waiters] of batch) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
