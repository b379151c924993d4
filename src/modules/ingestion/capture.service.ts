import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ProjectPrincipal } from '../../common/auth/principal';
import { jsonLongerThan } from '../../common/json/json-byte-length';
import type { HeldStrings } from '../../common/json/held-strings';
import { isJsonObject } from '../../common/json/json-object';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { assertSingleProjectKey, extractCaptureEvents } from './capture-events';
import { MAX_EVENT_BYTES, normalizeEvent } from './event-normalization';
import { IngestionMetrics } from './ingestion-metrics';
import { IngestionProducer } from './ingestion-producer';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import type { IngestionSegment } from './ingestion.types';
import { partitionOf } from './partitioning';
import { parseSentAt } from './timestamps';

export interface CaptureOutcome {
  /** Events not enqueued, by their position in the payload, with the reason (a warning type). */
  dropped: Map<number, string>;
}

export interface CaptureContext {
  path: string;
  query: Record<string, unknown>;
  ip: string | null;
  nowMs: number;
  /** Size of the decoded payload text; events are measured only when it could hold an oversize one. */
  decodedLength: number;
  /** False when the payload provably holds no NUL or lone surrogate: events are then used as parsed. */
  needsCleaning: boolean;
  /** The events over MAX_EVENT_BYTES, by position, when they were found while parsing; measured here otherwise. */
  oversizeItems?: number[];
  /** The payload's long property strings, which its events refer to by marker (common/json/held-strings.ts). */
  held?: HeldStrings;
}

/**
 * The capture use case on the API: shape the payload into events, drop the ones PostHog's capture drops
 * (recording why), normalise the rest and hand them to the partition queues. Answers once enqueued.
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
    assertSingleProjectKey(payload);
    const envelope = extractCaptureEvents(payload, context.path);
    const sentAtMs = parseSentAt(envelope.sentAt, context.query.sent_at ?? context.query._);
    const measure = context.decodedLength > MAX_EVENT_BYTES;
    const oversize = context.oversizeItems ? new Set(context.oversizeItems) : null;
    const segments = new Map<number, IngestionSegment>();
    const dropped: IngestionWarning[] = [];
    const corrections: IngestionWarning[] = [];
    const outcome: CaptureOutcome = { dropped: new Map() };
    let accepted = 0;
    for (const [index, raw] of envelope.items.entries()) {
      // PostHog's capture removes these without a trace.
      if (isPerformanceEvent(raw)) {
        outcome.dropped.set(index, 'dropped_performance_event');
        continue;
      }
      if (measure && (oversize ? oversize.has(index) : jsonLongerThan(raw, MAX_EVENT_BYTES))) {
        dropped.push({ type: 'event_too_big', details: { max_bytes: MAX_EVENT_BYTES } });
        outcome.dropped.set(index, 'event_too_big');
        continue;
      }
      const result = normalizeEvent(raw, { nowMs: context.nowMs, sentAtMs, ip: context.ip, clean: context.needsCleaning });
      if ('dropped' in result) {
        dropped.push(result.dropped);
        outcome.dropped.set(index, result.dropped.type);
        continue;
      }
      corrections.push(...result.warnings);
      this.segmentFor(segments, caller, result.event, context.nowMs).events.push(result.event);
      accepted += 1;
    }
    for (const warning of dropped) this.recordDrop(warning, context.path);
    const warnings = [...dropped, ...corrections];
    if (warnings.length > 0) this.attachWarnings(segments, caller, warnings, context.nowMs);
    this.metrics.received.inc({ path: context.path }, envelope.items.length);
    await this.producer.enqueue(segments, context.decodedLength, context.held);
    this.metrics.enqueued.inc(accepted);
    return outcome;
  }

  /** A drop answers 200 (as PostHog's capture does), so the log line and the warnings API are how anyone learns of it. */
  private recordDrop(warning: IngestionWarning, path: string): void {
    this.metrics.dropped.inc({ reason: warning.type });
    // The reason and the event name only: never the key, and no distinct id (often an e-mail address).
    const event = typeof warning.details.event === 'string' ? warning.details.event : undefined;
    this.logger.log({ reason: warning.type, path, event }, 'event dropped');
  }

  private segmentFor(segments: Map<number, IngestionSegment>, caller: ProjectPrincipal, event: NormalizedEvent, nowMs: number) {
    const partition = partitionOf(caller.token, event.distinct_id, this.config.ingestion.partitions);
    let segment = segments.get(partition);
    if (!segment) {
      segment = newSegment(caller, nowMs);
      segments.set(partition, segment);
    }
    return segment;
  }

  /** Warnings ride along with any segment of the request, or alone when every event was dropped. */
  private attachWarnings(segments: Map<number, IngestionSegment>, caller: ProjectPrincipal, warnings: IngestionWarning[], nowMs: number) {
    const first = segments.values().next().value as IngestionSegment | undefined;
    if (first) {
      first.warnings.push(...warnings);
      return;
    }
    segments.set(0, { ...newSegment(caller, nowMs), warnings });
  }
}

function newSegment(caller: ProjectPrincipal, nowMs: number): IngestionSegment {
  return { projectId: caller.projectId, token: caller.token, receivedAt: new Date(nowMs).toISOString(), events: [], warnings: [] };
}

/** Network-timing events of old posthog-js versions, which PostHog no longer stores. */
function isPerformanceEvent(raw: unknown): boolean {
  return isJsonObject(raw) && raw.event === '$performance_event';
}
