import { jsonLongerThan } from '../../common/json/json-byte-length';
import { isJsonObject } from '../../common/json/json-object';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';
import { assertSingleProjectKey, extractCaptureEvents } from './capture-events';
import { MAX_EVENT_BYTES, normalizeEvent } from './event-normalization';
import { parseSentAt } from './timestamps';

export interface PreparationContext {
  path: string;
  query: Record<string, unknown>;
  ip: string | null;
  nowMs: number;
  /** Characters of the decoded payload text: events are measured only when it could hold an oversize one. */
  decodedLength: number;
  /** False when the payload provably holds no NUL or lone surrogate: events are then used as parsed. */
  needsCleaning: boolean;
  /** The partition queue of a distinct id (its events keep their order there). */
  partitionOf: (distinctId: string) => number;
}

/** A capture payload as the queues take it: the events to store, by partition, and what was dropped or corrected. */
export interface PreparedEvents {
  byPartition: Map<number, NormalizedEvent[]>;
  /** Events not kept, by position in the payload, with the reason (a warning type). */
  droppedAt: Map<number, string>;
  /** Warnings of the events dropped (recorded and counted), then of those corrected. */
  dropped: IngestionWarning[];
  corrections: IngestionWarning[];
  /** Events in the payload, kept or not. */
  received: number;
}

/**
 * Capture's rules on one payload: one project key, PostHog's four body shapes, the events PostHog's capture drops
 * (performance events without a trace, oversize and malformed ones with a warning), each kept event normalised and put
 * on its distinct id's partition. Pure, so that the API and the payload worker (for large payloads) run the same code.
 */
export function prepareCapture(payload: unknown, context: PreparationContext): PreparedEvents {
  assertSingleProjectKey(payload);
  const envelope = extractCaptureEvents(payload, context.path);
  const sentAtMs = parseSentAt(envelope.sentAt, context.query.sent_at ?? context.query._);
  const measure = context.decodedLength > MAX_EVENT_BYTES;
  const prepared: PreparedEvents = { byPartition: new Map(), droppedAt: new Map(), dropped: [], corrections: [], received: envelope.items.length };
  for (const [index, raw] of envelope.items.entries()) {
    // PostHog's capture removes these without a trace.
    if (isPerformanceEvent(raw)) {
      prepared.droppedAt.set(index, 'dropped_performance_event');
      continue;
    }
    const result = measure && jsonLongerThan(raw, MAX_EVENT_BYTES) ? tooBig() : normalizeEvent(raw, { nowMs: context.nowMs, sentAtMs, ip: context.ip, clean: context.needsCleaning });
    if ('dropped' in result) {
      prepared.dropped.push(result.dropped);
      prepared.droppedAt.set(index, result.dropped.type);
      continue;
    }
    prepared.corrections.push(...result.warnings);
    const partition = context.partitionOf(result.event.distinct_id);
    const events = prepared.byPartition.get(partition);
    if (events) events.push(result.event);
    else prepared.byPartition.set(partition, [result.event]);
  }
  return prepared;
}

/** Events kept, over every partition. */
export function keptCount(prepared: Pick<PreparedEvents, 'byPartition'>): number {
  let count = 0;
  for (const events of prepared.byPartition.values()) count += events.length;
  return count;
}

function tooBig(): { dropped: IngestionWarning } {
  return { dropped: { type: 'event_too_big', details: { max_bytes: MAX_EVENT_BYTES } } };
}

/** Network-timing events of old posthog-js versions, which PostHog no longer stores. */
function isPerformanceEvent(raw: unknown): boolean {
  return isJsonObject(raw) && raw.event === '$performance_event';
}
