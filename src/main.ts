import 'reflect-metadata';
import cluster from 'node:cluster';
import type { RuntimeOptions } from './app.module';
import { createRootLogger } from './common/logging/logger';
import { portProblem } from './common/process/port-check';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { openDatabase } from './database/database-launcher';
import { runMigrations } from './database/data-source';
import { CHILD_READY } from './modules/metrics/cluster-metrics';
import { configureQueueConnection } from './queues/queue-connection';
import { startApi } from './roles/api';
import { startApiCluster } from './roles/api-cluster';
import { handleShutdown } from './roles/lifecycle';
import { startWorker } from './roles/worker';

/**
 * The one entry point of the service (`node dist/main.js`): read the configuration, open the database and migrate
 * it, then start the role ROLE names (`src/roles/`): api, worker, all, or an API cluster's primary.
 */
async function main(): Promise<void> {
  const config = readConfigOrExit();
  const logger = createRootLogger(config.log.level);
  await exitIfPortTaken(config);
  const database = await openDatabase(config, logger);
  // A child of an API cluster finds the database migrated and provisioned by its primary.
  if (!cluster.isWorker) {
    const applied = await runMigrations(database.url);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  }
  const runtime: RuntimeOptions = { config, databaseUrl: database.url, queue: configureQueueConnection(config, database.url) };
  if (config.role !== 'worker' && config.http.processes > 1) return startApiCluster(runtime, database, logger);

  const app = config.role === 'worker' ? await startWorker(runtime, logger) : await startApi(runtime, logger);
  const listening = config.role === 'worker' ? {} : { port: config.http.port };
  logger.info({ role: config.role, ...listening, queue: runtime.queue.kind, version: config.version }, 'started');
  if (cluster.isWorker) process.send?.({ type: CHILD_READY });
  handleShutdown(app, database, config, logger);
}

/** A process that will listen checks its port first; a cluster's children share their primary's. */
async function exitIfPortTaken(config: AppConfig): Promise<void> {
  if (config.role === 'worker' || cluster.isWorker) return;
  const problem = await portProblem(config.http.host, config.http.port);
  if (problem === null) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

function readConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

main().catch((error) => {
  process.stderr.write(`hogbase failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
