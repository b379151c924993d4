import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { PartitionQueues } from './partition-queues';

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

  constructor(private readonly queues: PartitionQueues) {}

  onModuleInit(): void {
    for (const queue of this.queues.all) queue.on('error', errorLogger(this.logger, queue.name));
  }
}
