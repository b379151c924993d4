import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { EventDefinitionsService } from '../event-definitions/event-definitions.service';
import { EventsService } from '../events/events.service';
import { GroupsService } from '../groups/groups.service';
import { PersonsService } from '../persons/persons.service';
import { ProjectsService } from '../projects/projects.service';
import { IngestionMetrics } from './ingestion-metrics';
import { IngestionWarningsRepository } from './ingestion-warnings.repository';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import type { IngestionJobData, IngestionSegment } from './ingestion.types';

interface ProjectWork {
  projectId: number;
  events: NormalizedEvent[];
  warnings: IngestionWarning[];
  receivedAt: string[];
}

/**
 * The worker half of ingestion. One job is one transaction: new events are claimed by uuid (a retry
 * writes nothing twice), persons and groups are updated in capture order, events and warnings are
 * inserted. Definitions and counters follow once it is committed.
 */
@Injectable()
export class IngestionWorkerService {
  private readonly logger = new Logger(IngestionWorkerService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly projects: ProjectsService,
    private readonly persons: PersonsService,
    private readonly events: EventsService,
    private readonly groups: GroupsService,
    private readonly definitions: EventDefinitionsService,
    private readonly warnings: IngestionWarningsRepository,
    private readonly metrics: IngestionMetrics,
  ) {}

  async processJob(data: IngestionJobData): Promise<void> {
    const work = await this.groupByProject(data.segments);
    const stored = await this.dataSource.transaction(async (em) => {
      const results: Array<{ work: ProjectWork; fresh: NormalizedEvent[] }> = [];
      for (const item of work) results.push({ work: item, fresh: await this.storeProject(em, item) });
      return results;
    });
    for (const { work: item, fresh } of stored) await this.afterCommit(item, fresh);
  }

  private async storeProject(em: EntityManager, work: ProjectWork): Promise<NormalizedEvent[]> {
    const claimed = await this.events.claimNewUuids(em, work.projectId, work.events);
    const fresh = work.events.filter((event) => claimed.delete(event.uuid));
    this.metrics.duplicates.inc(work.events.length - fresh.length);
    const outcome = await this.persons.applyEvents(em, work.projectId, fresh);
    const groupWarnings = await this.groups.applyGroupIdentifies(em, work.projectId, fresh);
    await this.events.store(em, work.projectId, fresh.map((event, index) => ({ event, personId: outcome.personIds[index] })));
    const warnings = [...work.warnings, ...outcome.warnings, ...groupWarnings];
    await this.warnings.insert(em, work.projectId, warnings, new Date().toISOString());
    return fresh;
  }

  /** Derived data and counters: losing them to a crash costs nothing the next event will not redo. */
  private async afterCommit(work: ProjectWork, fresh: NormalizedEvent[]): Promise<void> {
    const now = Date.now();
    this.metrics.persisted.inc(fresh.length);
    for (const receivedAt of work.receivedAt) this.metrics.lag.observe((now - Date.parse(receivedAt)) / 1000);
    if (fresh.length === 0) return;
    try {
      await this.definitions.recordSeen(work.projectId, fresh);
      await this.groups.recordGroupTypes(work.projectId, fresh);
      await this.projects.markIngested(work.projectId);
    } catch (error) {
      this.logger.warn({ err: error, projectId: work.projectId }, 'could not record definitions or group types');
    }
  }

  /** Segments in job order, merged per project; keys that were not checked at capture are checked now. */
  private async groupByProject(segments: IngestionSegment[]): Promise<ProjectWork[]> {
    const byProject = new Map<number, ProjectWork>();
    for (const segment of segments) {
      const projectId = segment.projectId ?? (await this.projects.projectIdForToken(segment.token));
      if (projectId === null) {
        this.metrics.dropped.inc({ reason: 'invalid_project_api_key' }, segment.events.length);
        this.logger.warn({ events: segment.events.length }, 'discarded events captured with an unknown project API key');
        continue;
      }
      const work = byProject.get(projectId) ?? { projectId, events: [], warnings: [], receivedAt: [] };
      work.events.push(...segment.events);
      work.warnings.push(...segment.warnings);
      work.receivedAt.push(segment.receivedAt);
      byProject.set(projectId, work);
    }
    return [...byProject.values()];
  }
}
