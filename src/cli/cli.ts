import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { createRootLogger, PinoNestLogger } from '../common/logging/logger';
import { loadConfig } from '../config/app-config';
import { DatabaseHandle, openDatabase } from '../database/database-launcher';
import { runMigrations } from '../database/data-source';
import { PersonalApiKeysService } from '../modules/personal-api-keys/personal-api-keys.service';
import { ProjectsService } from '../modules/projects/projects.service';
import { ProvisioningService } from '../modules/provisioning/provisioning.service';
import { UsersService } from '../modules/users/users.service';
import { DeadLettersService } from '../queues/dead-letters.service';
import { configureQueueConnection } from '../queues/queue-connection';
import { AnalyticsCopy } from '../modules/analytics/copy/analytics-copy.service';
import { CliAnalytics, CliServices, runCli } from './cli-commands';

/**
 * Opens the database the service uses (embedded or DATABASE_URL) and a Nest context without HTTP or workers;
 * with the analytics copy (and so the ClickHouse engine) only for the commands that use it.
 */
async function openServices(analyticsCopy: boolean): Promise<{ services: CliServices; analytics: CliAnalytics; close: () => Promise<void> }> {
  const config = loadConfig();
  const logger = createRootLogger(config.log.level === 'info' ? 'warn' : config.log.level);
  const database: DatabaseHandle = await openDatabase(config, logger);
  await runMigrations(database.url);
  const runtime = { config, databaseUrl: database.url, queue: configureQueueConnection(config, database.url) };
  const context: INestApplicationContext = await NestFactory.createApplicationContext(
    AppModule.forRoot(runtime, { api: false, workers: false, analyticsCopy }),
    { logger: new PinoNestLogger(logger) },
  );
  return {
    services: {
      provisioning: context.get(ProvisioningService),
      users: context.get(UsersService),
      projects: context.get(ProjectsService),
      keys: context.get(PersonalApiKeysService),
      deadLetters: context.get(DeadLettersService),
    },
    analytics: { rebuildOrRequest: (progress) => context.get(AnalyticsCopy).rebuildOrRequest(progress) },
    close: async () => {
      await context.close();
      await database.stop();
    },
  };
}

async function main(argv: string[]): Promise<number> {
  let opened: Awaited<ReturnType<typeof openServices>> | null = null;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    return await runCli(
      {
        out,
        services: async () => {
          opened ??= await openServices(false);
          return opened.services;
        },
        analytics: async () => {
          opened ??= await openServices(true);
          return opened.analytics;
        },
      },
      argv.length > 0 ? argv : ['--help'],
    );
  } finally {
    await (opened as { close: () => Promise<void> } | null)?.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    // One line a user can act on, never a stack trace.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`hogbase: ${message.split('\n')[0]}\n`);
    process.exit(1);
  },
);
