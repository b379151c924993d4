import { getQueueToken } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ingestionQueueNames } from './queue-names';

/** Log a connection problem once per this period per source, not once per retry. */
const LOG_EVERY_MS = 5000;

/** Throttled logger for 'error' events, which must have a listener or Node turns them into crashes. */
export function errorLogger(logger: Logger, source: string): (error: Error) => void {
  let lastLogged = 0;
  return (error: Error) => {
    const now = Date.now();
    if (now - lastLogged < LOG_EVERY_MS) return;
    lastLogged = now;
    logger.warn({ err: error, source }, 'queue connection error');
  };
}

/** Every producer queue gets an error listener: Redis going away is a 503, never a crashed process. */
@Injectable()
export class QueueErrorListeners implements OnModuleInit {
  private readonly logger = new Logger('Queues');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    for (const name of ingestionQueueNames(this.config.ingestion.partitions)) {
      this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }).on('error', errorLogger(this.logger, name));
    }
  }
}
