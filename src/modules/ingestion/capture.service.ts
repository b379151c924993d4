import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ProjectPrincipal } from '../../common/auth/principal';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import { keptCount, prepareCapture, type PreparationContext, type PreparedEvents } from './capture-preparation';
import { IngestionMetrics } from './ingestion-metrics';
import { IngestionProducer } from './ingestion-producer';
import type { IngestionSegment } from './ingestion.types';
import { segmentJobJson } from './job-splitting';
import { errorOf, type PreparedCapture, type SerializedCapture } from './payload/worker-protocol';
import { partitionOf } from './partitioning';

export interface CaptureOutcome {
  /** Events not enqueued, by their position in the payload, with the reason (a warning type). */
  dropped: Map<number, string>;
}

/** What capture needs of the request besides its payload; partitions come from the caller's key. */
export type CaptureContext = Omit<PreparationContext, 'partitionOf'>;

/**
 * The capture use case on the API: shape the payload into events, drop the ones PostHog's capture drops
 * (recording why), normalise the rest and hand them to the partition queues (capture-preparation.ts). Answers once
 * enqueued. A large payload arrives already prepared by the payload worker and only needs its caller's project.
 */
@Injectable()
export class CaptureService {
  private readonly logger = new Logger(CaptureService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly producer: IngestionProducer,
    private readonly metrics: IngestionMetrics,
  ) {}

  /** Enqueues the payload's events; resolves with the ones dropped (by position in the payload) and why. */
  async accept(caller: ProjectPrincipal, payload: unknown, context: CaptureContext): Promise<CaptureOutcome> {
    const partitions = this.config.ingestion.partitions;
    const prepared = prepareCapture(payload, { ...context, partitionOf: (distinctId) => partitionOf(caller.token, distinctId, partitions) });
    await this.enqueueEvents(caller, prepared, context.nowMs, context.path, context.decodedLength);
    return { dropped: prepared.droppedAt };
  }

  /** Enqueues a large payload's events, prepared by the payload worker, framed as the caller's project's jobs. */
  async acceptPrepared(caller: ProjectPrincipal, capture: SerializedCapture, path: string): Promise<void> {
    if ('refused' in capture) throw errorOf(capture.refused);
    const { nowMs } = capture;
    // Partitioned by the request's project key; a caller authenticated otherwise (a personal key) is partitioned anew.
    // With no event kept, only the warnings are left to enqueue, which the same path does.
    if (capture.partitionToken !== caller.token || capture.jobs.length === 0) {
      const bytes = capture.jobs.reduce((sum, job) => sum + job.json.byteLength, 0);
      return this.enqueueEvents(caller, { ...capture, byPartition: this.repartitioned(caller, capture) }, nowMs, path, bytes);
    }
    this.record(capture.dropped, capture.received, path);
    const frame = newSegment(caller, nowMs);
    const warnings = [...capture.dropped, ...capture.corrections];
    // Warnings ride with the first job, so each is recorded once.
    const jobs = capture.jobs.map((job, index) => ({ partition: job.partition, events: job.count, json: segmentJobJson({ ...frame, warnings: index === 0 ? warnings : [] }, job.json) }));
    await this.producer.enqueueSerialized(jobs);
    this.metrics.enqueued.inc(jobs.reduce((sum, job) => sum + job.events, 0));
  }

  /** `payloadBytes`: about how large the events' JSON is, so a large payload's jobs are cut into pieces of about 1 MB. */
  private async enqueueEvents(caller: ProjectPrincipal, prepared: Omit<PreparedEvents, 'droppedAt'>, nowMs: number, path: string, payloadBytes: number): Promise<void> {
    this.record(prepared.dropped, prepared.received, path);
    const segments = new Map<number, IngestionSegment>();
    for (const [partition, events] of prepared.byPartition) segments.set(partition, { ...newSegment(caller, nowMs), events });
    const warnings = [...prepared.dropped, ...prepared.corrections];
    // Warnings ride along with any segment of the request, or alone when every event was dropped.
    if (warnings.length > 0) {
      const first = segments.values().next().value as IngestionSegment | undefined;
      if (first) first.warnings.push(...warnings);
      else segments.set(0, { ...newSegment(caller, nowMs), warnings });
    }
    await this.producer.enqueue(segments, payloadBytes);
    this.metrics.enqueued.inc(keptCount(prepared));
  }

  /** A prepared payload's events on the partitions of the caller's own project key. */
  private repartitioned(caller: ProjectPrincipal, capture: PreparedCapture): Map<number, NormalizedEvent[]> {
    const byPartition = new Map<number, NormalizedEvent[]>();
    const partitions = this.config.ingestion.partitions;
    for (const job of capture.jobs) {
      for (const event of JSON.parse(Buffer.from(job.json).toString('utf8')) as NormalizedEvent[]) {
        const partition = partitionOf(caller.token, event.distinct_id, partitions);
        const events = byPartition.get(partition);
        if (events) events.push(event);
        else byPartition.set(partition, [event]);
      }
    }
    return byPartition;
  }

  /** A drop answers 200 (as PostHog's capture does), so the log line and the warnings API are how anyone learns of it. */
  private record(dropped: readonly IngestionWarning[], received: number, path: string): void {
    for (const warning of dropped) {
      this.metrics.dropped.inc({ reason: warning.type });
      // The reason and the event name only: never the key, and no distinct id (often an e-mail address).
      const event = typeof warning.details.event === 'string' ? warning.details.event : undefined;
      this.logger.log({ reason: warning.type, path, event }, 'event dropped');
    }
    this.metrics.received.inc({ path }, received);
  }
}

function newSegment(caller: ProjectPrincipal, nowMs: number): IngestionSegment {
  return { projectId: caller.projectId, token: caller.token, receivedAt: new Date(nowMs).toISOString(), events: [], warnings: [] };
}
