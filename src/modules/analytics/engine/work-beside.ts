import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';

/** CPU time spent so far by the whole machine and by this process, in ms, and when it was read. */
export interface CpuReading {
  machineMs: number;
  processMs: number;
  at: number;
}

/**
 * Work outside this process that makes the embedded engine leave a core free: a twentieth of one core, above what
 * an idle machine's daemons spend (about a hundredth) and below what ingestion at a few hundred events a second
 * makes Redis, PostgreSQL and the clients spend.
 */
export const BUSY_BESIDE_CORES = 0.05;
const SAMPLE_MS = 500;
export const HOLD_MS = 10_000;

export function readCpu(): CpuReading {
  let machineMs = 0;
  for (const { times } of cpus()) machineMs += times.user + times.nice + times.sys + times.irq;
  const { user, system } = process.cpuUsage();
  return { machineMs, processMs: (user + system) / 1000, at: performance.now() };
}

/** Cores the machine spent on work outside this process between two readings. */
export function coresBeside(before: CpuReading, after: CpuReading): number {
  const elapsed = after.at - before.at;
  if (elapsed <= 0) return 0;
  return Math.max(0, after.machineMs - before.machineMs - (after.processMs - before.processMs)) / elapsed;
}

/** The threads a read may use beside other work: one fewer than the cores, at least one, and no more than it may. */
export function threadsBeside(maxThreads: number, cores: number): number {
  return Math.max(1, Math.min(maxThreads, cores - 1));
}

/**
 * Whether other work lasted: a twentieth of a core or more in each of two samples in a row. An idle machine's daemons
 * spend a tenth of a core for a moment now and then, which alone would take a thread from the reads.
 */
export function lasted(previous: number, current: number): boolean {
  return Math.min(previous, current) >= BUSY_BESIDE_CORES;
}

/** How many threads the next read may use. */
export interface ReadThreads {
  next(): number;
  close(): void;
}

/**
 * Samples, twice a second, the CPU the machine spends outside this process (ingestion's Redis and PostgreSQL, other
 * API processes, the clients of a load test, anything else). Once such work has lasted a second, reads leave one core
 * to it, until ten seconds after it was last seen: ingestion comes in bursts (SDKs send their queue every few
 * seconds), and a read keeps the threads it started with to its end.
 * Two reads at a time on both cores of a small machine tripled capture's p99 beside them at 1,000 requests a second
 * however low the engine's threads' priority: a thread woken on a core another process group holds waits out that
 * group's time slice, on each hop of a request (client, Node, Redis, Node, client). One read thread kept it within
 * 1.3×, and would make a lone insight up to twice as slow, so a read takes every thread when nothing else runs.
 * Only sampled where it can matter: when a read may use every core.
 */
export function readThreadsBesideWork(maxThreads: number, cores = availableParallelism()): ReadThreads {
  if (maxThreads < cores) return { next: () => maxThreads, close: () => undefined };
  const work = new WorkBeside(readCpu(), maxThreads, cores);
  const timer = setInterval(() => work.sample(readCpu()), SAMPLE_MS).unref();
  return { next: () => work.threadsAt(performance.now()), close: () => clearInterval(timer) };
}

/** The samples' state: the last reading, the work beside in the sample before, and until when reads leave a core. */
export class WorkBeside {
  private previous = 0;
  private busyUntil = -Infinity;

  constructor(
    private last: CpuReading,
    private readonly maxThreads: number,
    private readonly cores: number,
  ) {}

  sample(now: CpuReading): void {
    const beside = coresBeside(this.last, now);
    if (lasted(this.previous, beside)) this.busyUntil = now.at + HOLD_MS;
    [this.previous, this.last] = [beside, now];
  }

  threadsAt(at: number): number {
    return at < this.busyUntil ? threadsBeside(this.maxThreads, this.cores) : this.maxThreads;
  }
}
