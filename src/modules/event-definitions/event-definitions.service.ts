import { Injectable } from '@nestjs/common';
import { EventDefinitionsRepository } from './event-definitions.repository';
import { PropertyDefinitionType } from './property-definition.entity';

export interface ProjectTaxonomy {
  eventNames: string[];
  eventProperties: string[];
}

@Injectable()
export class EventDefinitionsService {
  constructor(private readonly definitions: EventDefinitionsRepository) {}

  /** The event names and event property names seen in a project, for the current-user reply. */
  async taxonomy(projectId: number): Promise<ProjectTaxonomy> {
    const [eventNames, eventProperties] = await Promise.all([
      this.definitions.eventNames(projectId),
      this.definitions.propertyNames(projectId, PropertyDefinitionType.Event),
    ]);
    return { eventNames, eventProperties };
  }
}
