import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppModule, RuntimeOptions } from './app.module';
import { createRootLogger, PinoNestLogger } from './common/logging/logger';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { DatabaseHandle, openDatabase } from './database/database-launcher';
import { runMigrations } from './database/data-source';
import { createHttpApp } from './http-app';
import { HealthService } from './modules/health/health.service';
import { BootstrapKeys, ProvisioningService } from './modules/provisioning/provisioning.service';
import { configureQueueConnection } from './queues/queue-connection';

async function main(): Promise<void> {
  const config = readConfigOrExit();
  const logger = createRootLogger(config.log.level);
  const database = await openDatabase(config, logger);
  const applied = await runMigrations(database.url);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  const runtime: RuntimeOptions = { config, databaseUrl: database.url, queue: configureQueueConnection(config, database.url) };

  const app = await startRole(runtime, logger);
  const listening = config.role === 'worker' ? {} : { port: config.http.port };
  logger.info({ role: config.role, ...listening, queue: runtime.queue.kind, version: config.version }, 'started');
  handleShutdown(app, database, config, logger);
}

/** Provisioning happens before listening, so no request can meet a database without its first project. */
async function startRole(runtime: RuntimeOptions, logger: Logger): Promise<INestApplicationContext> {
  const { config } = runtime;
  if (config.role === 'worker') {
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
  const keys = await app.get(ProvisioningService).bootstrapIfEmpty();
  if (keys) printBootstrapKeys(keys, config);
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
  process.stdout.write(
    [
      '',
      '  hogbase is set up. Keep these keys: they are not shown again.',
      `  Project API key (phc_, for SDKs):     ${keys.projectApiKey}`,
      `  Personal API key (phx_, for /api/):   ${keys.personalApiKey}`,
      `  Admin user: ${keys.email}   Project id: ${keys.projectId}`,
      `  Try: curl -H "Authorization: Bearer ${keys.personalApiKey}" ${base}/api/users/@me/`,
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
}

main().catch((error) => {
  process.stderr.write(`hogbase failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
