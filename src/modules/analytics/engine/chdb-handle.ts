import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as Chdb from 'chdb';

export type ChdbModule = typeof Chdb;
export type ChdbSession = Chdb.Session;

/** chdb, or why it did not load: it ships native builds for glibc Linux and macOS only. */
export function loadChdb(): { chdb: ChdbModule } | { reason: string } {
  try {
    return { chdb: require('chdb') as ChdbModule };
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Server settings of the embedded engine (given after `--`, as `clickhouse local` takes configuration). ClickHouse
 * sizes its caches for a server of its own (5 GB each for marks and primary indexes); in the API process they
 * are bounded, so a copy many times larger than the bench's 10 M events cannot grow them into the API's memory
 * (at 10 M events these bounds changed no insight's time).
 */
const EMBEDDED_SERVER_SETTINGS = [
  '--',
  `--mark_cache_size=${64 * 1048576}`,
  `--primary_index_cache_size=${64 * 1048576}`,
  `--index_mark_cache_size=${32 * 1048576}`,
  `--query_condition_cache_size=${16 * 1048576}`,
];

/**
 * The embedded engine of this process. chdb runs one ClickHouse per process, bound to one data directory
 * while any session is open (another directory is refused, and a second process on the same directory
 * fails on its lock), so every user in the process (each Nest app of a test file, the HTTP front of the
 * tests, the API cluster's primary) shares this handle and opens its own sessions on its path. The last
 * release waits for chdb's native work to finish, after which another path may be opened.
 */
export class ChdbHandle {
  private refs = 0;
  private exclusiveTail: Promise<void> = Promise.resolve();
  private exclusiveWaiting = 0;

  constructor(
    readonly path: string,
    private readonly chdb: ChdbModule,
  ) {}

  openSession(): ChdbSession {
    return new this.chdb.Session(this.path, { connectionArgs: EMBEDDED_SERVER_SETTINGS });
  }

  /**
   * Runs a bound call (chdb's `queryBindAsync`, executed on a libuv thread: the copy's deletes of a batch,
   * analytic reads with small answers) alone. chdb's bound-parameter state is not isolated between
   * connections: two bound calls at once can swap values or abort the engine, which is why chdb chains its own
   * async bound calls. A bound stream starts synchronously on this thread and is outside that chain, so the
   * two are kept apart here: streams start only while no bound call runs or waits. A long bound call holds
   * back the start of streams, so long statements of the copy carry no bound values.
   */
  async exclusive<T>(run: () => Promise<T>): Promise<T> {
    const previous = this.exclusiveTail;
    let finished!: () => void;
    this.exclusiveTail = new Promise((done) => (finished = done));
    this.exclusiveWaiting++;
    try {
      await previous;
      return await run();
    } finally {
      this.exclusiveWaiting--;
      finished();
    }
  }

  /** Resolves when no exclusive statement runs or waits; start a bound stream in the same tick. */
  async outsideExclusive(): Promise<void> {
    while (this.exclusiveWaiting > 0) await this.exclusiveTail;
  }

  /** @internal counted by {@link acquireChdb} */
  retain(): this {
    this.refs++;
    return this;
  }

  /** Gives this user's share back; close your sessions first. */
  async release(): Promise<void> {
    if (this.refs === 0) return;
    if (--this.refs > 0) return;
    if (current === this) current = null;
    releasing = this.chdb.drainPending();
    await releasing;
  }
}

let current: ChdbHandle | null = null;
let releasing: Promise<void> = Promise.resolve();

/** The process's handle on `path`, opened on first use; an error while another path is open. */
export async function acquireChdb(path: string, chdb: ChdbModule): Promise<ChdbHandle> {
  const wanted = resolve(path);
  if (current === null) await releasing;
  if (current !== null && current.path !== wanted) {
    throw new Error(
      `The embedded ClickHouse of this process is open at ${current.path} and cannot also open ${wanted}: ` +
        'it keeps one data directory per process (use one directory, and a database per user of it).',
    );
  }
  if (current === null) {
    mkdirSync(wanted, { recursive: true });
    current = new ChdbHandle(wanted, chdb);
  }
  return current.retain();
}
