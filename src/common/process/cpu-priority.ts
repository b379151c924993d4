import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers this process's CPU priority to `nice` on every thread it has; the threads it starts later inherit it from
 * the thread that starts them. On Linux a nice value belongs to a thread, not to a process, so setting it for the
 * process id alone would leave V8's helper threads (its garbage collection among them) at the old priority.
 * Returns the nice value each thread now has (the thread ids are not returned: they mean nothing to a caller).
 */
export function lowerCpuPriority(nice: number): number[] {
  const threads = threadIds();
  if (threads.length === 0) {
    setPriority(0, nice); // not Linux: the process as a whole
    return [getPriority(0)];
  }
  // Only ever lowered: a thread already nicer than asked (set by an operator's `nice`) keeps its value.
  return threads.flatMap((tid) => {
    try {
      if (getPriority(tid) < nice) setPriority(tid, nice);
      return [getPriority(tid)];
    } catch {
      return []; // the thread ended since the listing
    }
  });
}

function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [];
  }
}
