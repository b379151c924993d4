/**
 * How long the embedded engine stays idle before its allocator's freed memory goes back to the system: about the
 * time over which a ClickHouse server's allocator lets freed pages decay. A read after a purge faults its working
 * memory back in, measured at 5–20 % of its time at 10 M events, so a user exploring (a question every few
 * seconds) keeps the memory and a process at rest gives it back.
 */
export const IDLE_MEMORY_RETURN_MS = 5_000;

/**
 * Hands the memory an embedded engine's statements freed back to the operating system once the engine has run
 * nothing for a moment. ClickHouse's allocator (jemalloc) keeps freed pages for reuse, and a server's background
 * worker purges them only past a share of the machine's memory: the API process would otherwise keep the
 * high-water mark of its largest query for good (measured at 10 M events: 860 MB resident after a run of insights,
 * 290 MB after a purge, in a process holding only the engine). A purge costs about 20 ms of the engine's time.
 */
export class IdleMemoryReturn {
  private timer: NodeJS.Timeout | null = null;
  private used = false;
  private unsupported = false;

  constructor(
    /** Returns the freed memory; a failure (an engine built without jemalloc) ends the returns for good. */
    private readonly purge: () => Promise<unknown>,
    private readonly idleMs: number,
  ) {}

  /** A statement starts: memory will be freed, and it is no time to return it. */
  busy(): void {
    this.used = true;
    this.cancel();
  }

  /** Nothing runs any more: return the memory unless a statement starts first. */
  idle(): void {
    if (!this.used || this.unsupported || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.used = false;
      this.purge().catch(() => (this.unsupported = true));
    }, this.idleMs);
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
