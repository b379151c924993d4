import { setFlagsFromString } from 'node:v8';

/** After a full collection the old generation may grow to twice what survived it before the next one starts. */
export const HEAP_GROWING_PERCENT = 100;

const OPERATOR_FLAG = /^--heap[-_]growing[-_]percent\b/;

/**
 * Fixes how far V8 lets the old generation grow between full collections; returns the percent set, or null when the
 * operator gave their own `--heap-growing-percent` to node (kept as given).
 *
 * V8 derives that growth after each full collection from how fast it collects against how fast the program promotes
 * objects, between 1.1× and 4×. A server that promotes little and collects fast gets 1.1×: the next collection's
 * marking then starts as soon as the last one has ended, and in the API under a steady stream of large bodies that
 * was a full collection every second, each a pause of 5–30 ms on the event loop every request waits for (none in the
 * minutes before the first one). At 2× the full collections come every several seconds, for at most the live heap
 * again in memory (about 50 MB for the API's main heap; each thread's heap counts on its own). V8's flags are the
 * process's, so its threads get the same. The fixed factor also replaces the lower ones V8 would choose under memory
 * pressure; the heap limit (`--max-old-space-size`) still bounds every heap.
 */
export function fixHeapGrowth(execArgv: readonly string[] = process.execArgv): number | null {
  if (execArgv.some((arg) => OPERATOR_FLAG.test(arg))) return null;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return HEAP_GROWING_PERCENT;
}
