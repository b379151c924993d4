import { getQueueToken } from '@nestjs/bullmq';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ingestionQueueNames } from '../../queues/queue-names';

/** One active job per partition across every worker process: what keeps a distinct_id's events in order. */
@Injectable()
export class PartitionConcurrency implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const name of ingestionQueueNames(this.config.ingestion.partitions)) {
      await this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }).setGlobalConcurrency(1);
    }
  }
}
