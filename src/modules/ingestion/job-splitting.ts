import { jsonByteLength } from '../../common/json/json-byte-length';
import type { IngestionJobData } from './ingestion.types';

/**
 * The job as consecutive jobs of at most about `maxBytes` of JSON each (one event may be bigger, alone), in order;
 * the job itself when it is that small. Serialising a job for the queue and writing it to Redis happen in one go on
 * the event loop, so a 5 MB job would hold every other request for that long; pieces of 1 MB let them in between.
 */
export function chunkJobBySize(data: IngestionJobData, maxBytes: number, heldBytes?: (piece: IngestionJobData) => number): IngestionJobData[] {
  // Sizes without the escape scan: chunking needs no exactness, and the event loop is what this spares. Strings held
  // off the heap (common/json/held-strings.ts) count for what they will add to the job's JSON.
  const sizeOf = (piece: IngestionJobData, limit: number) => jsonByteLength(piece, limit, false) + (heldBytes?.(piece) ?? 0);
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
