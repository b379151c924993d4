import type { AppConfig } from '../../../config/app-config';
import type { AnalyticsEngine } from './analytics-engine';
import { ChdbEngine } from './chdb-engine';
import { loadChdb } from './chdb-handle';
import { chooseEngine, EngineChoice, engineLimits, redactedUrl, schemaLayout } from './engine-choice';
import { HttpEngine } from './http-engine';
import { IpcEngine } from './ipc-engine';
import { IpcEngineHost } from './ipc-engine-host';
import { migrateSchema } from './schema/migrate-schema';
import { embeddedUnavailableDetail, serverUnavailableDetail, UnavailableEngine } from './unavailable-engine';

/** Where the opening is told (a Nest Logger or pino, adapted by the caller). */
export type EngineLog = (level: 'info' | 'error', message: string) => void;

export interface OpenEngineOptions {
  /** A child of an API cluster: the primary owns the embedded engine and has migrated the schema. */
  clusterChild: boolean;
  /** Apply the schema migrations: the one process that does (a single process, or a cluster's primary). */
  migrate: boolean;
  /** How chdb is loaded (tests simulate a platform without it). */
  load?: typeof loadChdb;
}

/**
 * The engine this process uses, its schema migrated when asked. Nothing here stops the service from
 * starting: an engine that cannot be opened becomes the unavailable one, whose 503 says why.
 */
export async function openAnalyticsEngine(config: AppConfig, log: EngineLog, options: OpenEngineOptions): Promise<AnalyticsEngine> {
  const choice = chooseEngine(config, options.clusterChild);
  const engine = await openChoice(choice, config, options.load ?? loadChdb);
  if (engine instanceof UnavailableEngine) {
    log('error', `analytics engine unavailable: ${engine.detail}`);
    return engine;
  }
  if (options.migrate) {
    try {
      const applied = await migrateSchema(engine, schemaLayout(config));
      if (applied.length > 0) log('info', `analytics schema migrations applied: ${applied.join(', ')}`);
    } catch (error) {
      await engine.close();
      return unavailable(log, serverOrEmbedded(choice, `its schema could not be migrated: ${(error as Error).message}`));
    }
  }
  log('info', `analytics engine: ${describeChoice(choice)}, database ${config.clickhouse.database}`);
  return engine;
}

/** The primary of an API cluster: migrates the schema, and without CLICKHOUSE_URL keeps the engine to serve its children. */
export async function startEnginePrimary(config: AppConfig, log: EngineLog): Promise<IpcEngineHost | null> {
  const engine = await openAnalyticsEngine(config, log, { clusterChild: false, migrate: true });
  if (engine.kind === 'server') {
    await engine.close();
    return null;
  }
  return new IpcEngineHost(engine).serveClusterChildren();
}

async function openChoice(choice: EngineChoice, config: AppConfig, load: typeof loadChdb): Promise<AnalyticsEngine> {
  const limits = engineLimits(config);
  const layout = schemaLayout(config);
  switch (choice.kind) {
    case 'unavailable':
      return new UnavailableEngine(embeddedUnavailableDetail(choice.reason));
    case 'primary':
      return IpcEngine.connect().catch((error: Error) => new UnavailableEngine(embeddedUnavailableDetail(`the primary process did not answer: ${error.message}`)));
    case 'server':
      return HttpEngine.open({ url: choice.url, layout, limits }).catch((error: Error) => new UnavailableEngine(serverUnavailableDetail(redactedUrl(choice.url), error.message)));
    case 'embedded': {
      const loaded = load();
      if ('reason' in loaded) return new UnavailableEngine(embeddedUnavailableDetail(`chdb did not load: ${loaded.reason}`));
      return ChdbEngine.open({ chdb: loaded.chdb, path: choice.path, layout, sessions: choice.sessions, limits }).catch(
        (error: Error) => new UnavailableEngine(embeddedUnavailableDetail(`it did not open at ${choice.path}: ${error.message}`)),
      );
    }
  }
}

function unavailable(log: EngineLog, detail: string): UnavailableEngine {
  log('error', `analytics engine unavailable: ${detail}`);
  return new UnavailableEngine(detail);
}

function serverOrEmbedded(choice: EngineChoice, reason: string): string {
  return choice.kind === 'server' ? serverUnavailableDetail(redactedUrl(choice.url), reason) : embeddedUnavailableDetail(reason);
}

function describeChoice(choice: EngineChoice): string {
  switch (choice.kind) {
    case 'server':
      return `ClickHouse server at ${redactedUrl(choice.url)}`;
    case 'embedded':
      return `embedded ClickHouse (chdb) at ${choice.path}, per-actor reads ${choice.sessions} at a time`;
    case 'primary':
      return 'the embedded ClickHouse of the primary process';
    default:
      return choice.kind;
  }
}
