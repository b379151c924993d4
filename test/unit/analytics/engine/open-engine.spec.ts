import { Test } from '@nestjs/testing';
import { ApiError } from '../../../../src/common/errors/api-error';
import { loadConfig } from '../../../../src/config/app-config';
import { ConfigModule } from '../../../../src/config/config.module';
import { ANALYTICS_ENGINE, AnalyticsEngine } from '../../../../src/modules/analytics/engine/analytics-engine';
import { AnalyticsEngineModule } from '../../../../src/modules/analytics/engine/analytics-engine.module';
import { EngineLog, openAnalyticsEngine } from '../../../../src/modules/analytics/engine/open-engine';
import { ClickHouseHttpFront } from '../../../support/clickhouse-http-front';
import { engineDirectory, requireChdb } from './engine-test-support';

/** The service's DATA_DIR for this file: the embedded engine lives in its `clickhouse/`, which the front shares. */
const dataDir = engineDirectory('open-engine');

afterAll(() => dataDir.remove());

function logs(): { log: EngineLog; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: (level, message) => void lines.push(`${level}: ${message}`) };
}

async function failureOf(engine: AnalyticsEngine): Promise<unknown> {
  const failure = await engine.query({ text: 'SELECT 1', params: {} }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ApiError);
  return { status: (failure as ApiError).status, ...(failure as ApiError).toBody() };
}

describe(openAnalyticsEngine.name, () => {
  const single = { clusterChild: false, migrate: true };

  it('answers 503 naming CLICKHOUSE_URL and the reason where chdb does not load, and says so in the log', async () => {
    const { log, lines } = logs();
    const sut = await openAnalyticsEngine(loadConfig({ DATA_DIR: dataDir.path }), log, { ...single, load: () => ({ reason: 'chdb: no native binding for linux-x64-musl' }) });
    expect(sut.kind).toBe('unavailable');
    const detail = 'Insights need ClickHouse: set CLICKHOUSE_URL to a ClickHouse server (the embedded engine is not available here: chdb did not load: chdb: no native binding for linux-x64-musl).';
    expect(await failureOf(sut)).toEqual({ status: 503, type: 'server_error', code: 'service_unavailable', detail, attr: null });
    expect(lines).toEqual([`error: analytics engine unavailable: ${detail}`]);
  });

  it('is unavailable when the embedded engine is turned off, without loading it', async () => {
    const load = jest.fn();
    const sut = await openAnalyticsEngine(loadConfig({ CLICKHOUSE_EMBEDDED: 'off' }), logs().log, { ...single, load });
    expect(await failureOf(sut)).toMatchObject({ status: 503, detail: expect.stringContaining('CLICKHOUSE_URL') });
    expect(load).not.toHaveBeenCalled();
  });

  it('is unavailable, without the password, when the server cannot be reached at boot', async () => {
    const sut = await openAnalyticsEngine(loadConfig({ CLICKHOUSE_URL: 'http://reader:s3cret@127.0.0.1:1' }), logs().log, single);
    const failure = (await failureOf(sut)) as { detail: string };
    expect(failure.detail).toMatch(/^Insights need ClickHouse: the server at CLICKHOUSE_URL \(http:\/\/127\.0\.0\.1:1\) could not be prepared when the service started \(.+\); restart the service once it answers\.$/);
    expect(failure.detail).not.toContain('s3cret');
  });

  it('opens the embedded engine under DATA_DIR and migrates its schema', async () => {
    const { log, lines } = logs();
    const sut = await openAnalyticsEngine(loadConfig({ DATA_DIR: dataDir.path, CLICKHOUSE_DATABASE: 'opened' }), log, single);
    try {
      expect(sut.kind).toBe('embedded');
      expect(await sut.query({ text: `SELECT count() AS n FROM system.tables WHERE database = 'opened' AND name = 'events'`, params: {} })).toEqual([{ n: 1 }]);
      expect(lines).toEqual(['info: analytics schema migrations applied: 1, 2', `info: analytics engine: embedded ClickHouse (chdb) at ${dataDir.path}/clickhouse, per-actor reads 1 at a time, database opened`]);
    } finally {
      await sut.close();
    }
  });

  it('opens a server at CLICKHOUSE_URL and migrates its schema there', async () => {
    const front = await ClickHouseHttpFront.start({ chdb: requireChdb(), path: `${dataDir.path}/clickhouse` });
    const { log, lines } = logs();
    const sut = await openAnalyticsEngine(loadConfig({ CLICKHOUSE_URL: front.url(), CLICKHOUSE_DATABASE: 'served' }), log, single);
    try {
      expect(sut.kind).toBe('server');
      expect(await sut.query({ text: `SELECT count() AS n FROM system.tables WHERE database = 'served' AND name = 'events'`, params: {} })).toEqual([{ n: 1 }]);
      expect(lines[1]).toBe(`info: analytics engine: ClickHouse server at ${front.url()}, database served`);
    } finally {
      await sut.close();
      await front.close();
    }
  });
});

describe(AnalyticsEngineModule.name, () => {
  const engineOf = async (env: Record<string, string>) => {
    const module = await Test.createTestingModule({ imports: [ConfigModule.forRoot(loadConfig(env)), AnalyticsEngineModule] }).compile();
    return { module, engine: module.get<AnalyticsEngine>(ANALYTICS_ENGINE) };
  };

  it('provides an engine whose query failures are already translated, and closes it with the app', async () => {
    const { module, engine } = await engineOf({ DATA_DIR: dataDir.path, CLICKHOUSE_DATABASE: 'provided' });
    expect(engine.kind).toBe('embedded');
    await expect(engine.query({ text: `SELECT match('a', {p:String})`, params: { p: '(' } })).rejects.toMatchObject({ status: 400, attr: 'properties' });
    await module.close();
    await expect(engine.query({ text: 'SELECT 1', params: {} })).rejects.toThrow('The analytics engine is closed.');
  });

  it('lets the application start without any engine', async () => {
    const { module, engine } = await engineOf({ CLICKHOUSE_EMBEDDED: 'off' });
    expect(engine.kind).toBe('unavailable');
    await module.close();
  });
});
