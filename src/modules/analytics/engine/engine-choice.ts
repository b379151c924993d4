import type { AppConfig } from '../../../config/app-config';
import type { QueryLimits } from './analytics-engine';
import type { SchemaLayout } from './schema/schema-migrations';

/**
 * Which engine a process runs, from the configuration alone:
 * - `server`: CLICKHOUSE_URL is set (every process talks to it);
 * - `primary`: a child of an API cluster without it, which forwards to the primary owning the embedded engine;
 * - `embedded`: chdb in this process, unless turned off;
 * - `unavailable`: none of them (insights answer 503).
 */
export type EngineChoice =
  | { kind: 'server'; url: string }
  | { kind: 'primary' }
  | { kind: 'embedded'; path: string; sessions: number }
  | { kind: 'unavailable'; reason: string };

export function chooseEngine(config: AppConfig, clusterChild: boolean): EngineChoice {
  const { clickhouse } = config;
  if (clickhouse.url !== null) return { kind: 'server', url: clickhouse.url };
  if (clusterChild) return { kind: 'primary' };
  if (!clickhouse.embedded.enabled) return { kind: 'unavailable', reason: 'it is turned off (CLICKHOUSE_EMBEDDED=off)' };
  return { kind: 'embedded', path: clickhouse.embedded.path, sessions: clickhouse.embedded.sessions };
}

export function engineLimits(config: AppConfig): QueryLimits {
  return {
    timeoutMs: config.analytics.queryTimeoutMs,
    maxThreads: config.analytics.queryMaxThreads,
    maxMemoryBytes: config.analytics.queryMaxMemoryMb * 1024 * 1024,
    threadPriority: config.analytics.queryThreadPriority,
  };
}

/** Replicated and sharded only on a named cluster of servers; the embedded engine is one node. */
export function schemaLayout(config: AppConfig): SchemaLayout {
  const { database, cluster, url } = config.clickhouse;
  return url !== null && cluster !== null ? { kind: 'cluster', cluster, database } : { kind: 'single', database };
}

/** The server's address for logs: never its credentials. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}
