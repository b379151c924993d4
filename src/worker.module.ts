import { DynamicModule, Module } from '@nestjs/common';
import { IngestionWorkerModule } from './modules/ingestion/ingestion-worker.module';

/** BullMQ processors. Started only in the `worker` and `all` roles. */
@Module({})
export class WorkerModule {
  static forRoot(partitions: number, workerConnection: unknown): DynamicModule {
    return { module: WorkerModule, imports: [IngestionWorkerModule.forRoot(partitions, workerConnection)] };
  }
}
