import { DynamicModule, Module } from '@nestjs/common';
import { ingestionQueueNames } from '../../queues/queue-names';
import { EventDefinitionsModule } from '../event-definitions/event-definitions.module';
import { EventsModule } from '../events/events.module';
import { GroupsModule } from '../groups/groups.module';
import { PersonsModule } from '../persons/persons.module';
import { ProjectsModule } from '../projects/projects.module';
import { IngestionMetricsModule } from './ingestion-metrics.module';
import { IngestionWarningsRepository } from './ingestion-warnings.repository';
import { IngestionWorkerService } from './ingestion-worker.service';
import { ingestionProcessorFor } from './ingestion.processor';
import { PartitionConcurrency } from './partition-concurrency';

/** The worker half of ingestion: one processor per partition queue. */
@Module({})
export class IngestionWorkerModule {
  static forRoot(partitions: number, workerConnection: unknown): DynamicModule {
    return {
      module: IngestionWorkerModule,
      imports: [ProjectsModule, PersonsModule, EventsModule, GroupsModule, EventDefinitionsModule, IngestionMetricsModule],
      providers: [
        IngestionWorkerService,
        IngestionWarningsRepository,
        PartitionConcurrency,
        ...ingestionQueueNames(partitions).map((name) => ingestionProcessorFor(name, workerConnection)),
      ],
    };
  }
}
