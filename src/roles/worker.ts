import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { AppModule, RuntimeOptions } from '../app.module';
import { PinoNestLogger } from '../common/logging/logger';
import { lowerCpuPriority } from '../common/process/cpu-priority';
import { provision } from './lifecycle';

/** The `worker` role: the BullMQ processors and no HTTP. */
export async function startWorker(runtime: RuntimeOptions, logger: Logger): Promise<INestApplicationContext> {
  const { config } = runtime;
  if (config.ingestion.workerNice > 0) logger.info({ nice: Math.min(...lowerCpuPriority(config.ingestion.workerNice)) }, 'worker CPU priority lowered');
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(runtime), { logger: new PinoNestLogger(logger) });
  await provision(context, config);
  return context;
}
