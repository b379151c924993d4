import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EventsRepository } from './events.repository';

const MONTHS_AHEAD = 2;
const CHECK_EVERY_MS = 6 * 60 * 60 * 1000;

/**
 * Keeps monthly partitions of `event` ready for the current month and the next two, so events land
 * in small partitions; anything outside (backfills, far past) goes to the default partition.
 */
@Injectable()
export class EventPartitionsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EventPartitionsService.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly events: EventsRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureUpcoming();
    this.timer = setInterval(() => void this.ensureUpcoming(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async ensureUpcoming(now = new Date()): Promise<void> {
    for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead++) {
      const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead, 1));
      try {
        await this.events.ensureMonthlyPartition(start);
      } catch (error) {
        // Rows of that month already in the default partition (or a concurrent creator): they stay there.
        this.logger.warn({ err: error, month: start.toISOString() }, 'could not create event partition');
      }
    }
  }
}
