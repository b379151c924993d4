import { Module } from '@nestjs/common';
import { BoundedReads } from '../../database/bounded-reads';
import { ActionsModule } from '../actions/actions.module';
import { EventDefinitionsModule } from '../event-definitions/event-definitions.module';
import { EventPartitionsService } from './event-partitions.service';
import { EventQueriesRepository } from './event-queries.repository';
import { EventQueriesService } from './event-queries.service';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/** Events: ingestion's writes and partitions (EventsService) and the management reads over them. */
@Module({
  imports: [EventDefinitionsModule, ActionsModule],
  controllers: [EventsController],
  providers: [BoundedReads, EventsRepository, EventsService, EventPartitionsService, EventQueriesRepository, EventQueriesService],
  exports: [EventsService],
})
export class EventsModule {}
