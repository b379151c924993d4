import { Module } from '@nestjs/common';
import { EventDefinitionsRepository } from './event-definitions.repository';
import { EventDefinitionsService } from './event-definitions.service';

@Module({
  providers: [EventDefinitionsRepository, EventDefinitionsService],
  exports: [EventDefinitionsService],
})
export class EventDefinitionsModule {}
