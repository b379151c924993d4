import { jsonByteLength } from '../../common/json/json-byte-length';
import type { NormalizedEvent } from '../events/normalized-event';
import type { IngestionJobData, IngestionSegment } from './ingestion.types';

/**
 * A job bigger than this is enqueued as several: serialising a job and writing it to Redis happen in one go, so a
 * 5 MB job would hold every other request (or every other enqueue) for that long; pieces of 1 MB let them in between.
 */
export const MAX_JOB_BYTES = 1024 * 1024;

/** A partition's events as the text of a JSON array, one piece of a large payload's jobs. */
export interface SerializedEvents {
  partition: number;
  json: Uint8Array<ArrayBuffer>;
  count: number;
}

/**
 * The job as consecutive jobs of at most about `maxBytes` of JSON each (one event may be bigger, alone), in order;
 * the job itself when it is that small. Serialising a job for the queue and writing it to Redis happen in one go on
 * the event loop, so a 5 MB job would hold every other request for that long; pieces of 1 MB let them in between.
 */
/**
 * Each partition's events as JSON arrays of about `maxBytes` at most (one event may be bigger, alone), in order: what
 * the payload worker hands back for a large payload, so that the event loop only frames and enqueues them.
 */
export function serializeEvents(byPartition: ReadonlyMap<number, readonly NormalizedEvent[]>, maxBytes: number): SerializedEvents[] {
  const encoder = new TextEncoder();
  const pieces: SerializedEvents[] = [];
  for (const [partition, events] of byPartition) {
    let texts: string[] = [];
    let size = 2;
    const flush = () => {
      pieces.push({ partition, json: encoder.encode(`[${texts.join(',')}]`), count: texts.length });
      texts = [];
      size = 2;
    };
    for (const event of events) {
      const text = JSON.stringify(event);
      // Characters, not bytes: chunking needs no exactness.
      if (texts.length > 0 && size + text.length + 1 > maxBytes) flush();
      texts.push(text);
      size += text.length + 1;
    }
    if (texts.length > 0) flush();
  }
  return pieces;
}

/**
 * The job `{segments: [segment]}` as UTF-8 JSON, with the segment's events given as the JSON text of their array: the
 * text `JSON.stringify` gives for the job with those events, built without reading them.
 */
export function segmentJobJson(segment: Omit<IngestionSegment, 'events'>, events: Uint8Array): Buffer {
  const { projectId, token, receivedAt, warnings } = segment;
  const head = `{"segments":[{"projectId":${JSON.stringify(projectId)},"token":${JSON.stringify(token)},"receivedAt":${JSON.stringify(receivedAt)},"events":`;
  return Buffer.concat([Buffer.from(head), events, Buffer.from(`,"warnings":${JSON.stringify(warnings)}}]}`)]);
}

export function chunkJobBySize(data: IngestionJobData, maxBytes: number): IngestionJobData[] {
  // Sizes without the escape scan: chunking needs no exactness, and the event loop is what this spares.
  const sizeOf = (piece: IngestionJobData, limit: number) => jsonByteLength(piece, limit, false);
  if (sizeOf(data, maxBytes) <= maxBytes) return [data];
  const chunks: IngestionJobData[] = [];
  let current: IngestionJobData[] = [];
  let size = 0;
  for (const piece of splitJobByEvent(data)) {
    const bytes = sizeOf(piece, Infinity);
    if (current.length > 0 && size + bytes > maxBytes) {
      chunks.push(joinJobs(current));
      current = [];
      size = 0;
    }
    current.push(piece);
    size += bytes;
  }
  if (current.length > 0) chunks.push(joinJobs(current));
  return chunks;
}

/**
 * The job as one job per event, in job order. A segment's capture-time warnings go with its first
 * event (or alone when it has none), so each is recorded once.
 */
export function splitJobByEvent(data: IngestionJobData): IngestionJobData[] {
  const pieces: IngestionJobData[] = [];
  for (const segment of data.segments) {
    if (segment.events.length === 0) {
      pieces.push({ segments: [segment] });
      continue;
    }
    segment.events.forEach((event, index) => {
      pieces.push({ segments: [{ ...segment, events: [event], warnings: index === 0 ? segment.warnings : [] }] });
    });
  }
  return pieces;
}

/** Pieces of a job as one job again, in order. */
export function joinJobs(pieces: IngestionJobData[]): IngestionJobData {
  return { segments: pieces.flatMap((piece) => piece.segments) };
}

export function eventCount(data: IngestionJobData): number {
  return data.segments.reduce((sum, segment) => sum + segment.events.length, 0);
}
