import { Module } from '@nestjs/common';
import { BoundedReads } from '../../database/bounded-reads';
import { ActivityLogsModule } from '../activity-logs/activity-logs.module';
import { PersonActionsController } from './person-actions.controller';
import { PersonManagementRepository } from './person-management.repository';
import { PersonQueriesService } from './person-queries.service';
import { PersonWritesService } from './person-writes.service';
import { PersonsController } from './persons.controller';
import { PersonsRepository } from './persons.repository';
import { PersonsService } from './persons.service';

/** Persons: ingestion's person updates (PersonsService) and the management API over them. */
@Module({
  imports: [ActivityLogsModule],
  controllers: [PersonsController, PersonActionsController],
  providers: [BoundedReads, PersonsRepository, PersonsService, PersonManagementRepository, PersonQueriesService, PersonWritesService],
  exports: [PersonsService, PersonQueriesService],
})
export class PersonsModule {}
