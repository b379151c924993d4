import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';

// dist/config and src/config are both two levels below the project root.
const packageVersion: string = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).version;

/** The process roles: `api` serves HTTP, `worker` runs the BullMQ processors, `all` does both. */
export type ProcessRole = 'api' | 'worker' | 'all';

export interface AppConfig {
  role: ProcessRole;
  version: string;
  http: {
    host: string;
    port: number;
    maxBodyBytes: number;
    /** `false`, `true` (trust every hop) or a list of proxy addresses/CIDRs whose X-Forwarded-* we believe. */
    trustProxy: boolean | string[];
    /** Base for absolute links (pagination) when the service sits behind a proxy that rewrites Host. */
    publicUrl: string | null;
    /** A request (headers and body) must arrive within this time, so stalled clients cannot hold sockets. */
    requestTimeoutMs: number;
    /** HTTP processes sharing the port (`api` and `all`); above 1 a primary process supervises them (node:cluster). */
    processes: number;
  };
  database: {
    /** Null means: start the embedded PostgreSQL in `dataDir`. */
    url: string | null;
    dataDir: string;
    embeddedPort: number;
    poolSize: number;
  };
  redis: { url: string | null };
  auth: {
    /** Unknown personal keys one address may send per minute before its attempts are refused with 429 (0: no limit). */
    failedAttemptsPerMinute: number;
  };
  flags: {
    /** Body limit of `/flags/` and `/decide/`, as received and as decoded: flag evaluation reads every byte. */
    maxBodyBytes: number;
  };
  analytics: {
    /** Server-side statement timeout of every analytic query. */
    queryTimeoutMs: number;
    /** How long a computed insight is served from the cache (0: never cached). */
    cacheTtlSeconds: number;
    /** How often the ClickHouse copy is refreshed from PostgreSQL when no insight asks (0: only when one asks). */
    copyIntervalMs: number;
    /** How long an insight waits for a running rebuild of the copy before answering 503. */
    copyWaitMs: number;
    /** Statement timeout of the copy's PostgreSQL reads (a rebuild reads every event in one statement). */
    copyTimeoutMs: number;
    /** ClickHouse threads one analytic query may use (`max_threads`). */
    queryMaxThreads: number;
    /** Memory one analytic query may use on ClickHouse (`max_memory_usage`), in MiB. */
    queryMaxMemoryMb: number;
    /** The nice value of ClickHouse's threads while they run an analytic query or a write (`os_thread_priority`; 0 leaves it). */
    queryThreadPriority: number;
  };
  clickhouse: {
    /** A ClickHouse server or cluster (`http(s)://[user:password@]host:port`); null runs the embedded engine. */
    url: string | null;
    /** The ClickHouse database of this service's tables, created if missing. */
    database: string;
    /** The `remote_servers` cluster the schema is created on, replicated and sharded (servers only). */
    cluster: string | null;
    embedded: {
      /** False never loads the embedded engine: insights then need `url`. */
      enabled: boolean;
      /** Where the embedded engine keeps its files (DATA_DIR/clickhouse). */
      path: string;
      /** Sessions of the embedded engine that per-actor reads (event-property correlation) stream on side by side. */
      sessions: number;
    };
  };
  management: {
    /**
     * Server-side statement timeout of the management reads whose cost the caller chooses (lists, searches,
     * property values), which run on the main pool that ingestion and flag evaluation share.
     */
    queryTimeoutMs: number;
  };
  queue: { prefix: string };
  ingestion: {
    /** Queues that per-distinct_id ordering is spread over; each runs one job at a time. */
    partitions: number;
    /** How long concurrent captures are gathered into one enqueue. */
    coalesceMs: number;
    /** How long an enqueue may take before capture answers 503. */
    enqueueTimeoutMs: number;
    maxDecompressedBytes: number;
    /** Bytes of large payloads (as received) that may wait for the payload worker; 0 → MAX_DECOMPRESSED_BYTES. */
    maxWaitingPayloadBytes: number;
    /**
     * The nice value a process whose role is `worker` lowers itself to at boot (0 leaves it as started): on a shared
     * machine the worker then takes the CPU that requests leave, and a burst shows as ingestion lag, not as latency.
     */
    workerNice: number;
  };
  bootstrap: { projectApiKey: string | null; personalApiKey: string | null; adminEmail: string; adminPassword: string | null };
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
  /** The secret a scraper sends as `Authorization: Bearer`; null leaves `/metrics` off. */
  metrics: { token: string | null };
  shutdownGraceMs: number;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string, value: string | undefined) {
    super(`Invalid configuration: ${variable} ${problem} (got ${JSON.stringify(value)})`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const TOKEN_SHAPE = /^[A-Za-z0-9]{16,64}$/;
/** Visible ASCII without spaces: what an `Authorization: Bearer` header carries unchanged. */
const METRICS_TOKEN_SHAPE = /^[\x21-\x7e]{16,512}$/;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer between ${min} and ${max}`, raw);
  }
  return value;
}

function readUrl(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL (${protocols.join(', ')})`, '<redacted>');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')}`, url.protocol);
  }
  return raw;
}

function readKey(env: Env, name: string, prefix: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!raw.startsWith(prefix) || !TOKEN_SHAPE.test(raw.slice(prefix.length))) {
    // The value is a secret for phx_ keys: name the rule, never echo it.
    throw new ConfigError(name, `must be "${prefix}" followed by 16 to 64 letters or digits`, '<redacted>');
  }
  return raw;
}

/** INIT_ADMIN_PASSWORD: the first admin's console password (8 to 1000 characters); a secret, never echoed. */
function readAdminPassword(env: Env): string | null {
  const raw = env.INIT_ADMIN_PASSWORD;
  if (raw === undefined || raw === '') return null;
  if (raw.length < 8 || raw.length > 1000) throw new ConfigError('INIT_ADMIN_PASSWORD', 'must be 8 to 1000 characters', '<redacted>');
  return raw;
}

function readMetricsToken(env: Env): string | null {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return null;
  // A secret: name the rule, never echo the value.
  if (!METRICS_TOKEN_SHAPE.test(raw)) throw new ConfigError('METRICS_TOKEN', 'must be 16 to 512 visible ASCII characters, without spaces', '<redacted>');
  return raw;
}

function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw as T)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}`, raw);
  return raw as T;
}

/** `auto` is one per core this process may use; the default stays one process. */
function readProcesses(env: Env): number {
  const raw = env.API_PROCESSES?.trim();
  if (raw === 'auto') return Math.min(64, availableParallelism());
  if (raw === undefined || raw === '') return 1;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 1 && value <= 64)) throw new ConfigError('API_PROCESSES', 'must be "auto" or an integer between 1 and 64', env.API_PROCESSES);
  return value;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function readIdentifier(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!IDENTIFIER.test(raw)) throw new ConfigError(name, 'must be a letter or underscore followed by up to 62 letters, digits or underscores', raw);
  return raw;
}

/**
 * The URL names the server only: the client would read a path as the database and override
 * CLICKHOUSE_DATABASE with it, so a path is refused rather than silently winning.
 */
function readClickHouseUrl(env: Env): string | null {
  const url = readUrl(env, 'CLICKHOUSE_URL', ['http:', 'https:']);
  if (url !== null && new URL(url).pathname.replace(/\/+$/, '') !== '') {
    throw new ConfigError('CLICKHOUSE_URL', 'must not name a database in its path (set CLICKHOUSE_DATABASE)', new URL(url).pathname);
  }
  return url;
}

/** A `remote_servers` name; it is written into the DDL between quotes, so only plain characters. */
function readClusterName(env: Env): string | null {
  const raw = env.CLICKHOUSE_CLUSTER;
  if (raw === undefined || raw === '') return null;
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/.test(raw)) throw new ConfigError('CLICKHOUSE_CLUSTER', 'must be up to 100 letters, digits, "_", "-" or "."', raw);
  return raw;
}

function readClickHouse(env: Env, dataDir: string): AppConfig['clickhouse'] {
  const url = readClickHouseUrl(env);
  const cluster = readClusterName(env);
  if (cluster !== null && url === null) throw new ConfigError('CLICKHOUSE_CLUSTER', 'needs CLICKHOUSE_URL (the embedded engine is a single node)', cluster);
  return {
    url,
    database: readIdentifier(env, 'CLICKHOUSE_DATABASE', 'hogbase'),
    cluster,
    embedded: {
      enabled: readEnum(env, 'CLICKHOUSE_EMBEDDED', ['on', 'off'] as const, 'on') === 'on',
      path: join(dataDir, 'clickhouse'),
      sessions: readInt(env, 'CLICKHOUSE_EMBEDDED_SESSIONS', 1, 1, 16),
    },
  };
}

function readTrustProxy(env: Env): boolean | string[] {
  const raw = env.TRUSTED_PROXIES?.trim();
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  return raw.split(',').map((part) => part.trim()).filter(Boolean);
}

/** Reads and validates the environment once; nothing else in the codebase reads process.env. */
export function loadConfig(env: Env = process.env): AppConfig {
  const dataDir = resolve(env.DATA_DIR || './data');
  const publicUrl = readUrl(env, 'PUBLIC_URL', ['http:', 'https:']);
  const email = env.INIT_ADMIN_EMAIL || 'admin@localhost';
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new ConfigError('INIT_ADMIN_EMAIL', 'must be an e-mail address', email);
  const config: AppConfig = {
    role: readEnum(env, 'ROLE', ['api', 'worker', 'all'] as const, 'all'),
    version: packageVersion,
    http: {
      host: env.HOST || '0.0.0.0',
      port: readInt(env, 'PORT', 8000, 0, 65535),
      maxBodyBytes: readInt(env, 'MAX_BODY_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      trustProxy: readTrustProxy(env),
      publicUrl: publicUrl ? publicUrl.replace(/\/+$/, '') : null,
      requestTimeoutMs: readInt(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
      processes: readProcesses(env),
    },
    database: {
      url: readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
      dataDir,
      embeddedPort: readInt(env, 'EMBEDDED_PG_PORT', 54329, 1, 65535),
      poolSize: readInt(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    },
    redis: { url: readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']) },
    auth: { failedAttemptsPerMinute: readInt(env, 'AUTH_FAILED_ATTEMPTS_PER_MINUTE', 30, 0, 1_000_000) },
    // SDKs send a few kilobytes; every byte is parsed and read on the event loop (see FLAGS_MAX_BODY_BYTES in the docs).
    flags: { maxBodyBytes: readInt(env, 'FLAGS_MAX_BODY_BYTES', 64 * 1024, 1024, 1024 * 1024 * 1024) },
    analytics: {
      queryTimeoutMs: readInt(env, 'ANALYTICS_QUERY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      cacheTtlSeconds: readInt(env, 'ANALYTICS_CACHE_TTL_SECONDS', 300, 0, 86_400),
      copyIntervalMs: readInt(env, 'ANALYTICS_COPY_INTERVAL_MS', 1_000, 0, 3_600_000),
      copyWaitMs: readInt(env, 'ANALYTICS_COPY_WAIT_MS', 5_000, 0, 600_000),
      copyTimeoutMs: readInt(env, 'ANALYTICS_COPY_TIMEOUT_MS', 3_600_000, 1_000, 86_400_000),
      queryMaxThreads: readInt(env, 'ANALYTICS_QUERY_MAX_THREADS', 2, 1, 256),
      queryMaxMemoryMb: readInt(env, 'ANALYTICS_QUERY_MAX_MEMORY_MB', 1024, 16, 1_048_576),
      queryThreadPriority: readInt(env, 'ANALYTICS_QUERY_THREAD_PRIORITY', 10, 0, 19),
    },
    clickhouse: readClickHouse(env, dataDir),
    management: {
      // At most 25 s: the main pool's client gives up on any query after 30 s (database/data-source.ts) without
      // stopping it, so the server's own timeout must come first to end the statement and free the connection.
      queryTimeoutMs: readInt(env, 'MANAGEMENT_QUERY_TIMEOUT_MS', 10_000, 100, 25_000),
    },
    queue: { prefix: env.QUEUE_PREFIX || 'hogbase' },
    ingestion: {
      partitions: readInt(env, 'INGESTION_PARTITIONS', 2, 1, 64),
      coalesceMs: readInt(env, 'INGESTION_COALESCE_MS', 5, 0, 1000),
      enqueueTimeoutMs: readInt(env, 'INGESTION_ENQUEUE_TIMEOUT_MS', 1500, 100, 60000),
      maxDecompressedBytes: readInt(env, 'MAX_DECOMPRESSED_BYTES', 0, 0, 4 * 1024 * 1024 * 1024),
      maxWaitingPayloadBytes: readInt(env, 'MAX_WAITING_PAYLOAD_BYTES', 0, 0, 16 * 1024 * 1024 * 1024),
      workerNice: readInt(env, 'WORKER_NICE', 10, 0, 19),
    },
    bootstrap: {
      projectApiKey: readKey(env, 'INIT_PROJECT_API_KEY', 'phc_'),
      personalApiKey: readKey(env, 'INIT_PERSONAL_API_KEY', 'phx_'),
      adminEmail: email,
      adminPassword: readAdminPassword(env),
    },
    log: { level: readEnum(env, 'LOG_LEVEL', LOG_LEVELS, 'info') },
    metrics: { token: readMetricsToken(env) },
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 20000, 0, 120000),
  };
  // PostHog budgets five times the wire cap for the decompressed payload.
  if (config.ingestion.maxDecompressedBytes === 0) config.ingestion.maxDecompressedBytes = 5 * config.http.maxBodyBytes;
  if (config.ingestion.maxWaitingPayloadBytes === 0) config.ingestion.maxWaitingPayloadBytes = config.ingestion.maxDecompressedBytes;
  return config;
}
