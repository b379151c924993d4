import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { AppConfig, ConfigError, loadConfig } from '../../src/config/app-config';

const PACKAGE_VERSION: string = require('../../package.json').version;

const PERSONAL_KEY = 'phx_' + 'A1b2C3d4E5f6G7h8J9k0';
const PROJECT_KEY = 'phc_' + 'Z9y8X7w6V5u4T3s2';
const METRICS_TOKEN = 'scrape-' + 'Me+0123/456789=';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected loadConfig(${JSON.stringify(env)}) to throw`);
}

describe(loadConfig.name, () => {
  describe('defaults', () => {
    it('builds the whole default configuration from an empty environment', () => {
      const expected: AppConfig = {
        role: 'all',
        version: PACKAGE_VERSION,
        http: { host: '0.0.0.0', port: 8000, maxBodyBytes: 20_971_520, trustProxy: false, publicUrl: null, requestTimeoutMs: 30_000, processes: 1 },
        database: { url: null, dataDir: resolve('./data'), embeddedPort: 54329, poolSize: 10 },
        redis: { url: null },
        auth: { failedAttemptsPerMinute: 30 },
        flags: { maxBodyBytes: 65_536 },
        analytics: { queryTimeoutMs: 30_000, cacheTtlSeconds: 300, copyIntervalMs: 1_000, copyWaitMs: 5_000, copyTimeoutMs: 3_600_000, queryMaxThreads: 2, queryMaxMemoryMb: 1024, queryThreadPriority: 10 },
        clickhouse: { url: null, database: 'hogbase', cluster: null, embedded: { enabled: true, path: resolve('./data/clickhouse'), sessions: 1 } },
        management: { queryTimeoutMs: 10_000 },
        queue: { prefix: 'hogbase' },
        ingestion: { partitions: 2, coalesceMs: 5, enqueueTimeoutMs: 1500, maxDecompressedBytes: 5 * 20_971_520, maxWaitingPayloadBytes: 5 * 20_971_520, workerNice: 10 },
        bootstrap: { projectApiKey: null, personalApiKey: null, adminEmail: 'admin@localhost', adminPassword: null },
        log: { level: 'info' },
        metrics: { token: null },
        shutdownGraceMs: 20_000,
      };
      expect(loadConfig({})).toEqual(expected);
    });

    it('treats empty strings like unset variables', () => {
      const env = Object.fromEntries(
        ['ROLE', 'PORT', 'MAX_BODY_BYTES', 'DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'TRUSTED_PROXIES', 'INIT_PERSONAL_API_KEY', 'INIT_PROJECT_API_KEY', 'LOG_LEVEL', 'HOST', 'DATA_DIR', 'INIT_ADMIN_EMAIL', 'METRICS_TOKEN'].map(
          (name) => [name, ''],
        ),
      );
      expect(loadConfig(env)).toEqual(loadConfig({}));
    });

    it('derives the decompressed cap from the body limit unless it is set', () => {
      expect(loadConfig({ MAX_BODY_BYTES: '2048' }).ingestion.maxDecompressedBytes).toBe(10_240);
      expect(loadConfig({ MAX_BODY_BYTES: '2048', MAX_DECOMPRESSED_BYTES: '4096' }).ingestion.maxDecompressedBytes).toBe(4096);
    });

    it('ignores undefined values', () => {
      expect(loadConfig({ PORT: undefined, ROLE: undefined })).toEqual(loadConfig({}));
    });
  });

  describe('valid values', () => {
    it('reads every setting', () => {
      const config = loadConfig({
        ROLE: 'worker',
        HOST: '127.0.0.1',
        PORT: '9000',
        MAX_BODY_BYTES: '2048',
        DATABASE_URL: 'postgres://u:p@db:5432/hog',
        DATA_DIR: '/var/lib/hog',
        EMBEDDED_PG_PORT: '6000',
        DATABASE_POOL_SIZE: '20',
        REDIS_URL: 'rediss://cache:6380',
        QUEUE_PREFIX: 'q',
        INGESTION_PARTITIONS: '8',
        INGESTION_COALESCE_MS: '0',
        INGESTION_ENQUEUE_TIMEOUT_MS: '900',
        MAX_DECOMPRESSED_BYTES: '8192',
        MAX_WAITING_PAYLOAD_BYTES: '65536',
        WORKER_NICE: '0',
        INIT_PROJECT_API_KEY: PROJECT_KEY,
        INIT_PERSONAL_API_KEY: PERSONAL_KEY,
        INIT_ADMIN_EMAIL: 'ops@example.com',
        INIT_ADMIN_PASSWORD: 'correct horse battery',
        LOG_LEVEL: 'debug',
        SHUTDOWN_GRACE_MS: '0',
        TRUSTED_PROXIES: '10.0.0.1',
        PUBLIC_URL: 'https://hog.example.com/',
        ANALYTICS_QUERY_TIMEOUT_MS: '1000',
        ANALYTICS_CACHE_TTL_SECONDS: '0',
        ANALYTICS_COPY_INTERVAL_MS: '0',
        ANALYTICS_COPY_WAIT_MS: '100',
        ANALYTICS_COPY_TIMEOUT_MS: '60000',
        ANALYTICS_QUERY_MAX_THREADS: '4',
        ANALYTICS_QUERY_MAX_MEMORY_MB: '512',
        ANALYTICS_QUERY_THREAD_PRIORITY: '0',
        CLICKHOUSE_URL: 'https://reader:secret@ch.example.com:8443',
        CLICKHOUSE_DATABASE: 'analytics_1',
        CLICKHOUSE_CLUSTER: 'posthog',
        CLICKHOUSE_EMBEDDED: 'off',
        CLICKHOUSE_EMBEDDED_SESSIONS: '3',
        AUTH_FAILED_ATTEMPTS_PER_MINUTE: '0',
        FLAGS_MAX_BODY_BYTES: '4096',
        MANAGEMENT_QUERY_TIMEOUT_MS: '2500',
        METRICS_TOKEN,
      });
      expect(config).toEqual({
        role: 'worker',
        version: PACKAGE_VERSION,
        http: { host: '127.0.0.1', port: 9000, maxBodyBytes: 2048, trustProxy: ['10.0.0.1'], publicUrl: 'https://hog.example.com', requestTimeoutMs: 30_000, processes: 1 },
        database: { url: 'postgres://u:p@db:5432/hog', dataDir: '/var/lib/hog', embeddedPort: 6000, poolSize: 20 },
        redis: { url: 'rediss://cache:6380' },
        auth: { failedAttemptsPerMinute: 0 },
        flags: { maxBodyBytes: 4096 },
        analytics: { queryTimeoutMs: 1000, cacheTtlSeconds: 0, copyIntervalMs: 0, copyWaitMs: 100, copyTimeoutMs: 60_000, queryMaxThreads: 4, queryMaxMemoryMb: 512, queryThreadPriority: 0 },
        clickhouse: { url: 'https://reader:secret@ch.example.com:8443', database: 'analytics_1', cluster: 'posthog', embedded: { enabled: false, path: '/var/lib/hog/clickhouse', sessions: 3 } },
        management: { queryTimeoutMs: 2500 },
        queue: { prefix: 'q' },
        ingestion: { partitions: 8, coalesceMs: 0, enqueueTimeoutMs: 900, maxDecompressedBytes: 8192, maxWaitingPayloadBytes: 65536, workerNice: 0 },
        bootstrap: { projectApiKey: PROJECT_KEY, personalApiKey: PERSONAL_KEY, adminEmail: 'ops@example.com', adminPassword: 'correct horse battery' },
        log: { level: 'debug' },
        metrics: { token: METRICS_TOKEN },
        shutdownGraceMs: 0,
      });
    });

    it.each(['api', 'worker', 'all'])('accepts ROLE=%s', (role) => {
      expect(loadConfig({ ROLE: role }).role).toBe(role);
    });

    it('accepts the postgresql: scheme', () => {
      expect(loadConfig({ DATABASE_URL: 'postgresql://localhost/hog' }).database.url).toBe('postgresql://localhost/hog');
    });

    it('accepts the redis: scheme', () => {
      expect(loadConfig({ REDIS_URL: 'redis://localhost:6379' }).redis.url).toBe('redis://localhost:6379');
    });

    it('accepts the PORT bounds 0 and 65535', () => {
      expect([loadConfig({ PORT: '0' }).http.port, loadConfig({ PORT: '65535' }).http.port]).toEqual([0, 65535]);
    });

    it('resolves a relative DATA_DIR against the working directory', () => {
      expect(loadConfig({ DATA_DIR: 'state/pg' }).database.dataDir).toBe(resolve('state/pg'));
    });
  });

  describe('API_PROCESSES', () => {
    it('is one process unless set', () => {
      expect(loadConfig({}).http.processes).toBe(1);
    });

    it('reads a count', () => {
      expect(loadConfig({ API_PROCESSES: '3' }).http.processes).toBe(3);
    });

    it('is one per available core for "auto"', () => {
      expect(loadConfig({ API_PROCESSES: 'auto' }).http.processes).toBe(Math.min(64, availableParallelism()));
    });

    it.each(['0', '65', 'two', '1.5'])('rejects %s, naming the variable', (value) => {
      expect(() => loadConfig({ API_PROCESSES: value })).toThrow(`Invalid configuration: API_PROCESSES must be "auto" or an integer between 1 and 64 (got "${value}")`);
    });
  });

  describe('TRUSTED_PROXIES', () => {
    it('is false for "false"', () => {
      expect(loadConfig({ TRUSTED_PROXIES: 'false' }).http.trustProxy).toBe(false);
    });

    it('is true for "true"', () => {
      expect(loadConfig({ TRUSTED_PROXIES: 'true' }).http.trustProxy).toBe(true);
    });

    it('splits a comma list and trims each entry', () => {
      expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16 ,::1' }).http.trustProxy).toEqual([
        '10.0.0.1',
        '192.168.0.0/16',
        '::1',
      ]);
    });

    it('drops empty entries of a comma list', () => {
      expect(loadConfig({ TRUSTED_PROXIES: ',10.0.0.1,, ,' }).http.trustProxy).toEqual(['10.0.0.1']);
    });

    it('keeps a single address as a one-element list', () => {
      expect(loadConfig({ TRUSTED_PROXIES: '127.0.0.1' }).http.trustProxy).toEqual(['127.0.0.1']);
    });
  });

  describe('METRICS_TOKEN', () => {
    it('takes 16 visible ASCII characters, punctuation included', () => {
      expect(loadConfig({ METRICS_TOKEN: '!~"#$%&()*+,-./:' }).metrics.token).toBe('!~"#$%&()*+,-./:');
    });

    it('takes 512 characters', () => {
      expect(loadConfig({ METRICS_TOKEN: 'x'.repeat(512) }).metrics.token).toHaveLength(512);
    });

    it.each([
      ['15 characters', 'x'.repeat(15)],
      ['513 characters', 'x'.repeat(513)],
      ['a space', 'sixteen chars ok'],
      ['a tab', 'sixteen\tchars-ok'],
      ['a newline', 'sixteen-chars-ok\n'],
      ['a character outside ASCII', 'sixteen-chars-\u00e9k'],
    ])('rejects a token with %s, never echoing it', (_label, value) => {
      const error = configError({ METRICS_TOKEN: value });
      expect(error.variable).toBe('METRICS_TOKEN');
      expect(error.message).toBe('Invalid configuration: METRICS_TOKEN must be 16 to 512 visible ASCII characters, without spaces (got "<redacted>")');
    });
  });

  describe('INIT_ADMIN_PASSWORD', () => {
    it('refuses a password under 8 characters, never echoing it', () => {
      const error = configError({ INIT_ADMIN_PASSWORD: 'short' });
      expect([error.variable, error.message]).toEqual(['INIT_ADMIN_PASSWORD', 'Invalid configuration: INIT_ADMIN_PASSWORD must be 8 to 1000 characters (got "<redacted>")']);
    });
  });

  describe('PUBLIC_URL', () => {
    it('drops a trailing slash', () => {
      expect(loadConfig({ PUBLIC_URL: 'https://hog.example.com/' }).http.publicUrl).toBe('https://hog.example.com');
    });

    it('drops several trailing slashes after a path', () => {
      expect(loadConfig({ PUBLIC_URL: 'http://proxy.local/hog//' }).http.publicUrl).toBe('http://proxy.local/hog');
    });

    it('keeps a URL without a trailing slash as it is', () => {
      expect(loadConfig({ PUBLIC_URL: 'http://proxy.local:8080/hog' }).http.publicUrl).toBe('http://proxy.local:8080/hog');
    });

    it('rejects a non-HTTP scheme', () => {
      const error = configError({ PUBLIC_URL: 'ftp://hog.example.com' });
      expect(error.variable).toBe('PUBLIC_URL');
      expect(error.message).toBe('Invalid configuration: PUBLIC_URL must use one of http:, https: (got "ftp:")');
    });
  });

  describe('validation errors', () => {
    it('rejects a non-numeric PORT, naming the variable and the value', () => {
      const error = configError({ PORT: 'abc' });
      expect(error.variable).toBe('PORT');
      expect(error.message).toBe('Invalid configuration: PORT must be an integer between 0 and 65535 (got "abc")');
    });

    it('rejects a PORT above 65535', () => {
      expect(configError({ PORT: '65536' }).variable).toBe('PORT');
    });

    it('rejects a negative PORT', () => {
      expect(configError({ PORT: '-1' }).variable).toBe('PORT');
    });

    it('rejects a fractional PORT', () => {
      expect(configError({ PORT: '80.5' }).variable).toBe('PORT');
    });

    it('rejects MAX_BODY_BYTES below 1024', () => {
      expect(configError({ MAX_BODY_BYTES: '1023' }).message).toBe(
        'Invalid configuration: MAX_BODY_BYTES must be an integer between 1024 and 1073741824 (got "1023")',
      );
    });

    it.each([
      ['EMBEDDED_PG_PORT', '0'],
      ['DATABASE_POOL_SIZE', '201'],
      ['INGESTION_PARTITIONS', '0'],
      ['SHUTDOWN_GRACE_MS', '120001'],
      ['ANALYTICS_COPY_TIMEOUT_MS', '999'],
      ['ANALYTICS_QUERY_TIMEOUT_MS', '99'],
      ['ANALYTICS_CACHE_TTL_SECONDS', '-1'],
      ['MANAGEMENT_QUERY_TIMEOUT_MS', '99'],
      // The main pool's client gives up after 30 s; the server's timeout must come first.
      ['MANAGEMENT_QUERY_TIMEOUT_MS', '25001'],
      ['WORKER_NICE', '20'],
      ['WORKER_NICE', '-5'],
    ])('rejects %s=%s as out of range', (name, value) => {
      expect(configError({ [name]: value }).variable).toBe(name);
    });

    it('rejects an unknown ROLE', () => {
      const error = configError({ ROLE: 'x' });
      expect(error.variable).toBe('ROLE');
      expect(error.message).toBe('Invalid configuration: ROLE must be one of api, worker, all (got "x")');
    });

    it('rejects ROLE in the wrong case', () => {
      expect(configError({ ROLE: 'API' }).variable).toBe('ROLE');
    });

    it('rejects an unknown LOG_LEVEL', () => {
      expect(configError({ LOG_LEVEL: 'verbose' }).message).toBe(
        'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
      );
    });

    it('rejects a DATABASE_URL with an HTTP scheme, naming only the scheme', () => {
      const error = configError({ DATABASE_URL: 'http://x' });
      expect(error.variable).toBe('DATABASE_URL');
      expect(error.message).toBe('Invalid configuration: DATABASE_URL must use one of postgres:, postgresql: (got "http:")');
    });

    it('rejects an unparsable DATABASE_URL without echoing it (it may hold a password)', () => {
      const error = configError({ DATABASE_URL: 's3cr3t-password@db' });
      expect(error.variable).toBe('DATABASE_URL');
      expect(error.message).toBe('Invalid configuration: DATABASE_URL must be a URL (postgres:, postgresql:) (got "<redacted>")');
    });

    it('rejects a REDIS_URL with a postgres scheme', () => {
      expect(configError({ REDIS_URL: 'postgres://x' }).message).toBe(
        'Invalid configuration: REDIS_URL must use one of redis:, rediss: (got "postgres:")',
      );
    });

    it('rejects a malformed INIT_PERSONAL_API_KEY without echoing the secret', () => {
      const error = configError({ INIT_PERSONAL_API_KEY: 'bad' });
      expect(error.variable).toBe('INIT_PERSONAL_API_KEY');
      expect(error.message).toBe(
        'Invalid configuration: INIT_PERSONAL_API_KEY must be "phx_" followed by 16 to 64 letters or digits (got "<redacted>")',
      );
    });

    it('does not echo a nearly valid personal key', () => {
      const secret = 'phx_' + 'Secret-With-Dash-1234';
      const error = configError({ INIT_PERSONAL_API_KEY: secret });
      expect(error.message).not.toContain('Secret-With-Dash');
      expect(error.message).toContain('INIT_PERSONAL_API_KEY');
    });

    it.each([
      ['a project key in place of a personal key', 'phc_' + 'A1b2C3d4E5f6G7h8'],
      ['15 characters after the prefix', 'phx_' + 'A'.repeat(15)],
      ['65 characters after the prefix', 'phx_' + 'A'.repeat(65)],
      ['an underscore after the prefix', 'phx_' + 'A'.repeat(15) + '_'],
    ])('rejects INIT_PERSONAL_API_KEY with %s', (_label, value) => {
      expect(configError({ INIT_PERSONAL_API_KEY: value }).variable).toBe('INIT_PERSONAL_API_KEY');
    });

    it('accepts INIT_PERSONAL_API_KEY with 16 and with 64 characters after the prefix', () => {
      const short = 'phx_' + 'a'.repeat(16);
      const long = 'phx_' + 'Z'.repeat(64);
      expect([
        loadConfig({ INIT_PERSONAL_API_KEY: short }).bootstrap.personalApiKey,
        loadConfig({ INIT_PERSONAL_API_KEY: long }).bootstrap.personalApiKey,
      ]).toEqual([short, long]);
    });

    it('rejects a malformed INIT_PROJECT_API_KEY', () => {
      expect(configError({ INIT_PROJECT_API_KEY: 'phc_short' }).message).toBe(
        'Invalid configuration: INIT_PROJECT_API_KEY must be "phc_" followed by 16 to 64 letters or digits (got "<redacted>")',
      );
    });

    it('rejects an INIT_ADMIN_EMAIL without an @', () => {
      expect(configError({ INIT_ADMIN_EMAIL: 'admin' }).message).toBe(
        'Invalid configuration: INIT_ADMIN_EMAIL must be an e-mail address (got "admin")',
      );
    });

    it('is an Error subclass', () => {
      expect(configError({ ROLE: 'x' })).toBeInstanceOf(Error);
    });
  });
});
