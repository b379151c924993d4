import { Injectable } from '@nestjs/common';
import { DefinitionsRecorder } from './definitions-recorder';
import { dailyVolumes } from './event-definition-rules';
import { EventDefinitionsRepository } from './event-definitions.repository';
import { PropertyDefinitionType } from './property-definition.entity';

export interface ProjectTaxonomy {
  eventNames: string[];
  eventProperties: string[];
}

@Injectable()
export class EventDefinitionsService {
  private readonly recorder = new DefinitionsRecorder();

  constructor(private readonly definitions: EventDefinitionsRepository) {}

  /** Creates definitions for what ingestion saw, writing only what this process has not written today. */
  async recordSeen(projectId: number, events: Array<{ event: string; properties: Record<string, unknown>; timestamp?: string }>, now = new Date()) {
    await this.definitions.addVolumes(projectId, dailyVolumes(events, now));
    const sighting = this.recorder.unseen(projectId, events, now);
    await this.definitions.recordEventNames(projectId, sighting.eventNames, now);
    await this.definitions.recordProperties(projectId, sighting.properties);
    this.recorder.remember(projectId, sighting, now);
  }

  /** One more management query that filtered on each of these (known) event names, for `query_usage_30_day`. */
  recordQueryUsage(projectId: number, names: string[]): Promise<void> {
    return this.definitions.addQueryUsage(projectId, names);
  }

  /** The event names and event property names seen in a project, for the current-user reply. */
  async taxonomy(projectId: number): Promise<ProjectTaxonomy> {
    const [eventNames, eventProperties] = await Promise.all([
      this.definitions.eventNames(projectId),
      this.definitions.propertyNames(projectId, PropertyDefinitionType.Event),
    ]);
    return { eventNames, eventProperties };
  }
}
