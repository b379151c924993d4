import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Node's own threads, which keep the process's priority: the main thread and libuv's pool are named `node` (libuv
 * from 1.48 names its pool `libuv-worker`), V8's helpers `V8 …`.
 * Every ClickHouse thread names itself when it starts (`ThreadPool`, `QueryPipelineEx`, `BgSchPool`, …).
 */
const NODE_THREAD = /^(node|libuv-worker|V8 .*)$/;
/**
 * ClickHouse's memory worker reads the process's resident memory to enforce the memory limits; late readings let
 * a query run past its limit, so it keeps its priority.
 */
const KEPT_ENGINE_THREADS = new Set(['MemoryWorker']);
/** A thread still named `node` this long after it was first seen is Node's; a ClickHouse thread names itself at once. */
const NAMING_MS = 1_000;

/** The threads of this process, as Linux lists them under /proc; null where there is no such list (macOS). */
export interface ProcessThreads {
  ids(): string[];
  /** The thread's name, or null once it has ended. */
  name(id: string): string | null;
  /** Lowers the thread's priority to `nice` unless it is lower already; a thread that has ended is skipped. */
  lower(id: string, nice: number): void;
}

export function linuxThreads(): ProcessThreads | null {
  const dir = '/proc/self/task';
  try {
    readdirSync(dir);
  } catch {
    return null;
  }
  return {
    ids: () => readdirSync(dir),
    name: (id) => {
      try {
        return readFileSync(`${dir}/${id}/comm`, 'utf8').trim();
      } catch {
        return null;
      }
    },
    lower: (id, nice) => {
      try {
        if (getPriority(Number(id)) < nice) setPriority(Number(id), nice);
      } catch {
        // The thread ended between the listing and now.
      }
    },
  };
}

/**
 * Keeps the embedded engine's threads at a lower priority than Node's, whatever the process may do. ClickHouse's
 * `os_thread_priority` sets a query's threads only when the process holds CAP_SYS_NICE (raising a priority takes that
 * privilege, and it raises each thread back after the query); the project's Docker image runs without it. Where it
 * holds it, ClickHouse raises its threads back to the process's priority after each query, and they then run the work
 * that belongs to no query at the priority of the threads that serve capture: a third of a core beside two insight
 * loops, measured. Lowering needs no privilege, and lowering for good is what the embedded engine wants: every thread
 * ClickHouse runs yields to the threads that serve capture. So the engine sweeps its process's threads around each
 * statement: a new thread is named once, a ClickHouse thread is lowered whenever it is found above the value (one
 * system call each, about 30 threads).
 */
export class EngineThreadNiceness {
  /** Threads by id: ClickHouse's to keep lowered, or settled (Node's, or kept at their priority). */
  private readonly known = new Map<string, 'engine' | 'settled'>();
  /** Threads still named `node`, by when they were first seen. */
  private readonly unnamed = new Map<string, number>();

  constructor(
    private readonly nice: number,
    private readonly threads: ProcessThreads | null = linuxThreads(),
    private readonly now: () => number = Date.now,
  ) {}

  sweep(): void {
    if (this.nice <= 0 || !this.threads) return;
    const ids = this.threads.ids();
    for (const id of ids) {
      const kind = this.known.get(id) ?? this.classify(id);
      if (kind === 'engine') this.threads.lower(id, this.nice);
    }
    if (this.known.size + this.unnamed.size > ids.length) this.forgetEnded(new Set(ids));
  }

  private classify(id: string): 'engine' | 'settled' | undefined {
    const name = this.threads!.name(id);
    if (name === null) return undefined;
    const nodeNamed = NODE_THREAD.test(name);
    if (nodeNamed) {
      const seen = this.unnamed.get(id) ?? this.now();
      this.unnamed.set(id, seen);
      if (this.now() - seen < NAMING_MS) return undefined;
    }
    const kind = nodeNamed || KEPT_ENGINE_THREADS.has(name) ? 'settled' : 'engine';
    this.unnamed.delete(id);
    this.known.set(id, kind);
    return kind;
  }

  /** Thread ids are reused once a thread ends: forget the ended ones, so a new thread under an old id is looked at. */
  private forgetEnded(live: Set<string>): void {
    for (const id of this.known.keys()) if (!live.has(id)) this.known.delete(id);
    for (const id of this.unnamed.keys()) if (!live.has(id)) this.unnamed.delete(id);
  }
}
