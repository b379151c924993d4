import type { IngestionJobData } from './ingestion.types';

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
