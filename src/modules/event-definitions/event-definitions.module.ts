import { Module } from '@nestjs/common';
import { BoundedReads } from '../../database/bounded-reads';
import { OrganizationsModule } from '../organizations/organizations.module';
import { EventDefinitionManagementService } from './event-definition-management.service';
import { EventDefinitionQueriesRepository } from './event-definition-queries.repository';
import { EventDefinitionsController } from './event-definitions.controller';
import { EventDefinitionsRepository } from './event-definitions.repository';
import { EventDefinitionsService } from './event-definitions.service';

@Module({
  imports: [OrganizationsModule],
  controllers: [EventDefinitionsController],
  providers: [BoundedReads, EventDefinitionsRepository, EventDefinitionsService, EventDefinitionQueriesRepository, EventDefinitionManagementService],
  exports: [EventDefinitionsService],
})
export class EventDefinitionsModule {}
