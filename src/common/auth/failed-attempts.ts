import { LRUCache } from 'lru-cache';

interface Window {
  failures: number;
  endsAt: number;
}

/** Addresses followed at once; past it the least recently seen is forgotten (an attacker cannot grow memory). */
const MAX_ADDRESSES = 10_000;

/**
 * Failed personal-key attempts per source address, in fixed windows. Once an address has failed `limit` times in a
 * window, every personal-key attempt from it is refused until the window ends, so keys cannot be guessed at the
 * speed of the server. Counted per process: an API cluster of N processes allows N times as many.
 */
export class FailedAttempts {
  private readonly windows = new LRUCache<string, Window>({ max: MAX_ADDRESSES });

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the address may try again; null when it may try now. */
  retryAfterSeconds(address: string): number | null {
    if (this.limit === 0) return null;
    const window = this.current(address);
    if (!window || window.failures < this.limit) return null;
    return Math.max(1, Math.ceil((window.endsAt - this.now()) / 1000));
  }

  recordFailure(address: string): void {
    if (this.limit === 0) return;
    const window = this.current(address) ?? { failures: 0, endsAt: this.now() + this.windowMs };
    window.failures += 1;
    this.windows.set(address, window);
  }

  private current(address: string): Window | null {
    const window = this.windows.get(address);
    return window && window.endsAt > this.now() ? window : null;
  }
}
