import 'reflect-metadata';
import cluster from 'node:cluster';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import type { Logger } from 'pino';
import { ApiCluster } from './api-cluster';
import { AppModule, RuntimeOptions } from './app.module';
import { createRootLogger, PinoNestLogger } from './common/logging/logger';
import { lowerCpuPriority } from './common/process/cpu-priority';
import { fixHeapGrowth } from './common/process/heap-growth';
import { portProblem } from './common/process/port-check';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { DatabaseHandle, openDatabase } from './database/database-launcher';
import { runMigrations } from './database/data-source';
import { createHttpApp } from './http-app';
import { startEnginePrimary } from './modules/analytics/engine/open-engine';
import { HealthService } from './modules/health/health.service';
import { CHILD_READY } from './modules/metrics/cluster-metrics';
import { BootstrapKeys, ProvisioningService } from './modules/provisioning/provisioning.service';
import { configureQueueConnection } from './queues/queue-connection';

async function main(): Promise<void> {
  fixHeapGrowth();
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
  if (config.role !== 'worker' && config.http.processes > 1) return startCluster(runtime, database, logger);

  const app = await startRole(runtime, logger);
  const listening = config.role === 'worker' ? {} : { port: config.http.port };
  logger.info({ role: config.role, ...listening, queue: runtime.queue.kind, version: config.version }, 'started');
  if (cluster.isWorker) process.send?.({ type: CHILD_READY });
  handleShutdown(app, database, config, logger);
}

/** API_PROCESSES > 1: provision once here, then let the children serve (api-cluster.ts). */
async function startCluster(runtime: RuntimeOptions, database: DatabaseHandle, logger: Logger): Promise<void> {
  const { config } = runtime;
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(runtime, { api: false, workers: false }), { logger: new PinoNestLogger(logger) });
  await provision(context, config);
  await context.close();
  // Before forking: the children find the analytics schema migrated and, without CLICKHOUSE_URL, an engine here to forward to.
  const engineHost = await startEnginePrimary(config, (level, message) => logger[level](message));
  await new ApiCluster(config, database, logger, engineHost).start();
  const parts = { port: config.http.port, processes: config.http.processes, workerProcess: config.role === 'all' };
  logger.info({ role: config.role, ...parts, queue: runtime.queue.kind, version: config.version }, 'started');
}

/** Provisioning happens before listening, so no request can meet a database without its first project. */
async function startRole(runtime: RuntimeOptions, logger: Logger): Promise<INestApplicationContext> {
  const { config } = runtime;
  if (config.role === 'worker') {
    if (config.ingestion.workerNice > 0) logger.info({ nice: Math.min(...lowerCpuPriority(config.ingestion.workerNice)) }, 'worker CPU priority lowered');
    const context = await NestFactory.createApplicationContext(AppModule.forRoot(runtime), { logger: new PinoNestLogger(logger) });
    await provision(context, config);
    return context;
  }
  const app = await createHttpApp(runtime, logger);
  await provision(app, config);
  await app.listen({ port: config.http.port, host: config.http.host });
  return app;
}

async function provision(app: INestApplicationContext, config: AppConfig): Promise<void> {
  if (cluster.isWorker) return; // the primary provisioned before forking
  const keys = await app.get(ProvisioningService).bootstrapIfEmpty();
  if (keys) printBootstrapKeys(keys, config);
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

/** Printed once, on the boot that created them, straight to stdout: the log stream never carries secrets. */
function printBootstrapKeys(keys: BootstrapKeys, config: AppConfig): void {
  const base = config.http.publicUrl ?? `http://localhost:${config.http.port}`;
  // Keys the operator gave (INIT_*) are theirs already: printing them would only copy a secret into a log.
  const given = { project: config.bootstrap.projectApiKey !== null, personal: config.bootstrap.personalApiKey !== null };
  const personal = given.personal ? '(the one in INIT_PERSONAL_API_KEY)' : keys.personalApiKey;
  const fresh = !given.project || !given.personal;
  process.stdout.write(
    [
      '',
      fresh ? '  hogbase is set up. Keep these keys: they are not shown again.' : '  hogbase is set up with the keys given in INIT_*.',
      `  Project API key (phc_, for SDKs):     ${given.project ? '(the one in INIT_PROJECT_API_KEY)' : keys.projectApiKey}`,
      `  Personal API key (phx_, for /api/):   ${personal}`,
      `  Admin user: ${keys.email}   Project id: ${keys.projectId}`,
      `  Admin password (sign in at ${base}/): ${config.bootstrap.adminPassword !== null ? '(the one in INIT_ADMIN_PASSWORD)' : keys.adminPassword}`,
      `  Try: curl -H "Authorization: Bearer ${given.personal ? '$INIT_PERSONAL_API_KEY' : keys.personalApiKey}" ${base}/api/users/@me/`,
      '',
    ].join('\n') + '\n',
  );
}

/** SIGTERM: stop taking work, finish in-flight requests and jobs, then exit 0 within the grace period. */
function handleShutdown(app: INestApplicationContext, database: DatabaseHandle, config: AppConfig, logger: Logger): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const force = setTimeout(() => {
      logger.error('graceful shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 4000);
    force.unref();
    try {
      app.get(HealthService, { strict: false })?.startDraining();
    } catch {
      // The worker role has no health endpoint to flip.
    }
    await app.close();
    await database.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // A cluster child whose primary is gone drains like on SIGTERM instead of serving unsupervised.
  if (cluster.isWorker) process.on('disconnect', () => void stop('primary exited'));
}

main().catch((error) => {
  process.stderr.write(`hogbase failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
