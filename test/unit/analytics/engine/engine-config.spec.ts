import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../../../src/config/app-config';
import { chooseEngine, engineLimits, redactedUrl, schemaLayout } from '../../../../src/modules/analytics/engine/engine-choice';

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('ClickHouse configuration', () => {
  it('runs the embedded engine under DATA_DIR in the hogbase database by default', () => {
    const config = loadConfig({ DATA_DIR: 'state' });
    expect(config.clickhouse).toEqual({ url: null, database: 'hogbase', cluster: null, embedded: { enabled: true, path: resolve('state', 'clickhouse'), sessions: 1 } });
    expect(engineLimits(config)).toEqual({ timeoutMs: 30_000, maxThreads: 2, maxMemoryBytes: 1024 * 1024 * 1024, threadPriority: 10 });
  });

  it.each([
    ['CLICKHOUSE_URL', 'ftp://ch:21', 'Invalid configuration: CLICKHOUSE_URL must use one of http:, https: (got "ftp:")'],
    ['CLICKHOUSE_URL', 'not a url', 'Invalid configuration: CLICKHOUSE_URL must be a URL (http:, https:) (got "<redacted>")'],
    ['CLICKHOUSE_URL', 'http://u:secret@ch:8123/analytics', 'Invalid configuration: CLICKHOUSE_URL must not name a database in its path (set CLICKHOUSE_DATABASE) (got "/analytics")'],
    ['CLICKHOUSE_DATABASE', 'my-db', 'Invalid configuration: CLICKHOUSE_DATABASE must be a letter or underscore followed by up to 62 letters, digits or underscores (got "my-db")'],
    ['CLICKHOUSE_EMBEDDED', 'no', 'Invalid configuration: CLICKHOUSE_EMBEDDED must be one of on, off (got "no")'],
    ['CLICKHOUSE_EMBEDDED_SESSIONS', '0', 'Invalid configuration: CLICKHOUSE_EMBEDDED_SESSIONS must be an integer between 1 and 16 (got "0")'],
    ['ANALYTICS_QUERY_MAX_THREADS', '0', 'Invalid configuration: ANALYTICS_QUERY_MAX_THREADS must be an integer between 1 and 256 (got "0")'],
    ['ANALYTICS_QUERY_MAX_MEMORY_MB', '8', 'Invalid configuration: ANALYTICS_QUERY_MAX_MEMORY_MB must be an integer between 16 and 1048576 (got "8")'],
    ['ANALYTICS_QUERY_THREAD_PRIORITY', '-1', 'Invalid configuration: ANALYTICS_QUERY_THREAD_PRIORITY must be an integer between 0 and 19 (got "-1")'],
  ])('refuses %s=%s, never echoing a password', (name, value, message) => {
    expect(configError({ [name]: value })).toBe(message);
  });

  it('refuses a cluster without a server, since the embedded engine is one node', () => {
    expect(configError({ CLICKHOUSE_CLUSTER: 'posthog' })).toBe('Invalid configuration: CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (the embedded engine is a single node) (got "posthog")');
  });

  it('refuses a cluster name that could not be written between quotes in the DDL', () => {
    expect(configError({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: "a' b" })).toBe(
      `Invalid configuration: CLICKHOUSE_CLUSTER must be up to 100 letters, digits, "_", "-" or "." (got "a' b")`,
    );
    expect(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'prod-1.eu' }).clickhouse.cluster).toBe('prod-1.eu');
  });

  it('keeps a trailing slash on the server URL', () => {
    expect(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123/' }).clickhouse.url).toBe('http://ch:8123/');
  });
});

describe(chooseEngine.name, () => {
  it.each([
    ['a server URL, in any process', { CLICKHOUSE_URL: 'http://ch:8123' }, true, { kind: 'server', url: 'http://ch:8123' }],
    ['a cluster child without a URL', {}, true, { kind: 'primary' }],
    ['a single process without a URL', { DATA_DIR: '/srv' }, false, { kind: 'embedded', path: '/srv/clickhouse', sessions: 1 }],
    ['the embedded engine turned off', { CLICKHOUSE_EMBEDDED: 'off' }, false, { kind: 'unavailable', reason: 'it is turned off (CLICKHOUSE_EMBEDDED=off)' }],
  ])('chooses for %s', (_case, env, clusterChild, choice) => {
    expect(chooseEngine(loadConfig(env), clusterChild)).toEqual(choice);
  });

  it('lays the schema out on the cluster only for a server with CLICKHOUSE_CLUSTER', () => {
    expect(schemaLayout(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'posthog', CLICKHOUSE_DATABASE: 'hb' }))).toEqual({ kind: 'cluster', cluster: 'posthog', database: 'hb' });
    expect(schemaLayout(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123' }))).toEqual({ kind: 'single', database: 'hogbase' });
  });

  it('names the server in logs without its credentials', () => {
    expect(redactedUrl('https://reader:secret@ch.example.com:8443')).toBe('https://ch.example.com:8443');
  });
});
