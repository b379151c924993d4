import { Module } from '@nestjs/common';
import { EventPartitionsService } from './event-partitions.service';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

@Module({
  providers: [EventsRepository, EventsService, EventPartitionsService],
  exports: [EventsService],
})
export class EventsModule {}
