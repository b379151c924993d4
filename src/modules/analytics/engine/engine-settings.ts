import type { QueryLimits } from './analytics-engine';
import type { EngineThreadNiceness } from './engine-thread-niceness';

/** ClickHouse settings by name; numbers only, so they can be written into a SET statement as they are. */
export type ChSettings = Record<string, number>;

/**
 * What every statement runs with, in either deployment:
 * - 64-bit integers as JSON numbers (ClickHouse's own default since 25.8, stated so a server configured
 *   otherwise answers the same);
 * - lower-priority threads, so HTTP and ingestion go first on a shared machine. ClickHouse applies the value only
 *   when its process holds CAP_SYS_NICE (as root does), and otherwise leaves its threads at the process's priority
 *   without an error (https://github.com/ClickHouse/ClickHouse/blob/master/src/Common/OSThreadNiceValue.cpp); the
 *   embedded engine therefore also lowers its threads itself ({@link EngineThreadNiceness}). At 0 the setting is
 *   not sent at all, for servers whose profiles do not let users change it.
 */
function common(limits: QueryLimits): ChSettings {
  const settings: ChSettings = { output_format_json_quote_64bit_integers: 0 };
  if (limits.threadPriority > 0) settings.os_thread_priority = limits.threadPriority;
  return settings;
}

/**
 * An analytic read: bounded in time, threads and memory. Group-bys and sorts that outgrow half the memory
 * limit spill to disk instead of failing: per-actor reads (funnels, paths) over a million actors need more
 * than 1 GB in memory, and a slower answer beats a 400 for the question a user asked.
 * `IN (subquery)` sets are built for filtering only, not also for index analysis: no read tests a sorting-key
 * column against a subquery, and building the set a second time for the index made a trend filtered by a person
 * property (the person's id in the persons it holds for) take 330 ms instead of 130 ms at 10 M events.
 */
export function readSettings(limits: QueryLimits): ChSettings {
  const spill = Math.floor(limits.maxMemoryBytes / 2);
  return {
    ...common(limits),
    max_execution_time: limits.timeoutMs / 1000,
    max_threads: limits.maxThreads,
    max_memory_usage: limits.maxMemoryBytes,
    max_bytes_before_external_group_by: spill,
    max_bytes_before_external_sort: spill,
    use_index_for_in_with_subqueries: 0,
  };
}

/**
 * A write or DDL: unbounded (the copy's INSERT … SELECT may take long), and synchronous, since ClickHouse
 * 26 buffers inserts by default (`async_insert = 1`) and a read right after would miss the rows.
 */
export function writeSettings(limits: QueryLimits): ChSettings {
  return { ...common(limits), async_insert: 0 };
}

/** The settings as one `SET` statement (the embedded engine keeps them for the session it runs on). */
export function setStatement(settings: ChSettings): string {
  const assignments = Object.entries(settings).map(([name, value]) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name) || !Number.isFinite(value)) throw new Error(`invalid ClickHouse setting ${name}=${value}`);
    return `${name} = ${value}`;
  });
  return `SET ${assignments.join(', ')}`;
}
